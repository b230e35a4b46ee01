import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { formatInTimeZone } from 'date-fns-tz';
import type ExcelJS from 'exceljs';
import Papa from 'papaparse';
import type { CellValue, Column, ColumnType } from './report.js';
import { yesNo } from './labels.js';

/**
 * The two export formats of docs/domain-rules.md (reports), written as the rows arrive: CSV (UTF-8 with
 * a byte-order mark, RFC 4180 through papaparse) and XLSX (exceljs's streaming workbook writer).
 */

export const CSV_MEDIA_TYPE = 'text/csv; charset=utf-8';
export { XLSX as XLSX_MEDIA_TYPE } from '../../route.js';

/** Rows gathered into one write: fewer syscalls, still nowhere near the whole result. */
const CSV_ROWS_PER_WRITE = 200;

const write = async (out: Writable, chunk: string | Buffer) => {
  if (!out.write(chunk)) await once(out, 'drain');
};

/**
 * Text a spreadsheet would read as a formula (a client named `=HYPERLINK(…)`, `@`, or a tab or carriage return
 * before one): prefixed with an apostrophe, which spreadsheets show as text. A leading `+` or `-` is a formula
 * only when the rest is not a number: a phone `+584141234567` or an amount `-12.50` stays exactly as the list
 * shows it (docs/decisions/0089-csv-cells-that-are-numbers.md). Numbers stay numbers, negative ones included.
 */
const FORMULA_START = /^[=@\t\r]/;
const SIGNED = /^[+-]/;
const SIGNED_NUMBER = /^[+-](?:\d+(?:\.\d+)?|\.\d+)$/;

const isFormula = (text: string): boolean =>
  FORMULA_START.test(text) || (SIGNED.test(text) && !SIGNED_NUMBER.test(text));

const csvCell = (type: ColumnType, v: CellValue): string | number | null => {
  if (v === null) return null;
  if (type === 'boolean' || typeof v === 'boolean') return yesNo(Boolean(v));
  return typeof v === 'string' && isFormula(v) ? `'${v}` : v;
};

export const writeCsv = async <Item>(
  out: Writable,
  columns: Column<Item>[],
  first: IteratorResult<Item>,
  rest: AsyncIterator<Item>,
): Promise<void> => {
  await write(out, '\uFEFF' + Papa.unparse([columns.map((c) => c.header)]) + '\r\n');
  let pending: (string | number | null)[][] = [];
  const flush = async () => {
    if (pending.length === 0) return;
    await write(out, Papa.unparse(pending, { header: false, newline: '\r\n' }) + '\r\n');
    pending = [];
  };
  for (let r = first; !r.done; r = await rest.next()) {
    const item = r.value;
    pending.push(columns.map((c) => csvCell(c.type, c.value(item))));
    if (pending.length >= CSV_ROWS_PER_WRITE) await flush();
  }
  await flush();
};

/**
 * An ISO instant as the report time zone's wall clock: spreadsheets have no time zones, and the back
 * office reads Caracas time (the date filters' calendar).
 */
const wallClock = (iso: string, tz: string): Date =>
  new Date(formatInTimeZone(iso, tz, "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"));

const xlsxCell = (type: ColumnType, v: CellValue, tz: string): ExcelJS.CellValue => {
  if (v === null) return null;
  switch (type) {
    case 'datetime':
      return wallClock(String(v), tz);
    case 'date':
      return new Date(`${String(v)}T00:00:00Z`);
    case 'boolean':
      return yesNo(Boolean(v));
    default:
      return v;
  }
};

const NUM_FMT: Partial<Record<ColumnType, string>> = {
  datetime: 'yyyy-mm-dd hh:mm:ss',
  date: 'yyyy-mm-dd',
  integer: '0',
  number: '0.00',
};

export const writeXlsx = async <Item>(
  out: Writable,
  sheetName: string,
  columns: Column<Item>[],
  tz: string,
  first: IteratorResult<Item>,
  rest: AsyncIterator<Item>,
): Promise<void> => {
  // Loaded on the first XLSX export: it is the heaviest module of the service (about 0.3 s), and a restart
  // should not wait for it.
  const { default: excel } = await import('exceljs');
  const workbook = new excel.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet(sheetName);
  sheet.columns = columns.map((c, i) => ({
    key: String(i),
    header: c.header,
    width: Math.max(12, c.header.length + 2),
    style: NUM_FMT[c.type] ? { numFmt: NUM_FMT[c.type] } : {},
  }));
  let n = 0;
  for (let r = first; !r.done; r = await rest.next()) {
    const item = r.value;
    sheet.addRow(columns.map((c) => xlsxCell(c.type, c.value(item), tz))).commit();
    // Let the zip stream hand what it has to the socket before the next rows pile up.
    if (++n % CSV_ROWS_PER_WRITE === 0 && out.writableNeedDrain) await once(out, 'drain');
  }
  sheet.commit();
  await workbook.commit();
};
