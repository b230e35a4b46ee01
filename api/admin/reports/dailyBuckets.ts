import { sql, type RawBuilder } from 'kysely';
import { orderBuckets, pgZone, type Figure } from '../../../projections/reports/dailyRollup.js';
import type { ReportContext } from './report.js';
import type { DateWindow } from './reportQuery.js';
import { allOf, inScope } from './sortedRows.js';

/** The filters a daily roll-up answers: each is a column of its bucket key. */
export interface BucketFilter {
  city_id?: number;
  driver_id?: number;
  water_type?: string;
}

/**
 * The daily buckets `d` (day, city_id, driver_id, water_type and the figures of dailyRollup.ts) of the
 * orders created in the window that pass the filters and the admin's cities: read from report_daily,
 * or report_daily_drivers when a driver is asked for, by filter or by `drivers`; computed from the
 * report_orders rows, one bucket per order, when `rowOnly` holds a condition on `o` no key answers (a
 * client, a status …) or the context asks for rows. A figure summed over either gives the same number.
 */
export const buckets = (rc: ReportContext, w: DateWindow, f: BucketFilter, opts: { drivers?: boolean; rowOnly?: RawBuilder<unknown>[] } = {}): RawBuilder<unknown> => {
  const rowOnly = opts.rowOnly ?? [];
  const keyed = (alias: 'd' | 'o') => {
    const col = (c: string) => sql.ref(`${alias}.${c}`);
    const where: RawBuilder<unknown>[] = inScope(rc.scope, col('city_id'));
    if (f.city_id !== undefined) where.push(sql`${col('city_id')} = ${f.city_id}`);
    if (f.driver_id !== undefined) where.push(sql`${col('driver_id')} = ${f.driver_id}`);
    if (f.water_type !== undefined) where.push(sql`${col('water_type')} = ${f.water_type}`);
    return where;
  };
  if (rc.rowsOnly || rowOnly.length > 0) {
    return orderBuckets(sql`${pgZone(rc.tz)}::text`, allOf([sql`o.created_at >= ${w.startAt}`, sql`o.created_at < ${w.endAt}`, ...keyed('o'), ...rowOnly]));
  }
  const table = opts.drivers || f.driver_id !== undefined ? sql`report_daily_drivers` : sql`report_daily`;
  return sql`SELECT * FROM ${table} d WHERE ${allOf([sql`d.day >= ${w.from}::date`, sql`d.day <= ${w.to}::date`, ...keyed('d')])}`;
};

/** Σ figure over the buckets `b`, as a number (counts and sums of one window fit a float8 exactly). */
export const total = (f: Figure): RawBuilder<number> => sql<number>`coalesce(sum(b.${sql.ref(f)}), 0)::float8`;
