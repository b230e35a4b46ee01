import type { CrossFieldRules } from '../../crossFieldRules.js';
import type { ZodType } from 'zod';
import type { Db } from '../../../infra/db/database.js';
import type { CityScope } from '../../../projections/customers/customerQueries.js';

/** How a column is written to a spreadsheet: numbers stay numbers and dates stay dates. */
export type ColumnType = 'text' | 'integer' | 'number' | 'boolean' | 'date' | 'datetime';

export type CellValue = string | number | boolean | null;

/** One exported column: its Spanish header (spec order) and its value, read from the list's item. */
export interface Column<Item> {
  header: string;
  type: ColumnType;
  value: (item: Item) => CellValue;
}

/** What a report query runs against: the read models, the admin's cities and the report calendar. */
export interface ReportContext {
  db: Db;
  scope: CityScope;
  /**
   * The settlement timezone as report_calendar holds it (an IANA name or ±HH:MM, ISO sign), whose calendar
   * days the date filters name; in SQL always pgZone(tz).
   */
  tz: string;
  /** Today in `tz` (YYYY-MM-DD). */
  today: string;
  now: Date;
  /** Every figure from the report_orders rows, never from the daily roll-ups: the reference they are tested against. */
  rowsOnly?: boolean;
}

/**
 * A report is one descriptor served three ways: the JSON list, the CSV and the XLSX exports.
 * Exports write `items(…)` (the list's items, same filters and order, not paginated) through `columns`,
 * so an export row always equals its list row.
 */
export interface Report<Q, Item> {
  /** Path below /api/v1, e.g. /admin/reports/orders (the export adds /export). */
  path: string;
  summary: string;
  /** File name stem, e.g. reporte_ordenes. */
  file: string;
  query: ZodType<Q>;
  /** Its date window and the pairs of bounds, as the document says them. */
  rules?: CrossFieldRules;
  /** The JSON body of the list route. */
  response: ZodType;
  columns: Column<Item>[];
  list(rc: ReportContext, q: Q): Promise<unknown>;
  /** Every item in list order, read in batches: never the whole result at once. */
  items(rc: ReportContext, q: Q): AsyncIterable<Item>;
}

export const report = <Q, Item>(r: Report<Q, Item>): Report<Q, Item> => r;
