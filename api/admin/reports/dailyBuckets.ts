import { sql, type RawBuilder } from 'kysely';
import { FIGURES, orderBuckets, pgZone, type Figure } from '../../../projections/reports/dailyRollup.js';
import type { ReportContext } from './report.js';
import { addDays, addMonths, type DateWindow } from './reportQuery.js';
import { allOf, inScope } from './sortedRows.js';

/** The filters a daily roll-up answers: each is a column of its bucket key. */
export interface BucketFilter {
  city_id?: number;
  driver_id?: number;
  water_type?: string;
}

/** The admin's cities and the bucket-key filters, on a bucket (`d`) or a report_orders row (`o`). */
export const keyWhere = (scope: ReportContext['scope'], f: BucketFilter, alias: 'd' | 'o'): RawBuilder<unknown>[] => {
  const col = (c: string) => sql.ref(`${alias}.${c}`);
  const where: RawBuilder<unknown>[] = inScope(scope, col('city_id'));
  if (f.city_id !== undefined) where.push(sql`${col('city_id')} = ${f.city_id}`);
  if (f.driver_id !== undefined) where.push(sql`${col('driver_id')} = ${f.driver_id}`);
  if (f.water_type !== undefined) where.push(sql`${col('water_type')} = ${f.water_type}`);
  return where;
};

/**
 * The daily buckets `d` (day, city_id, driver_id, water_type and the figures of dailyRollup.ts) of the
 * orders created in the window that pass the filters and the admin's cities: read from report_daily,
 * or report_daily_drivers when a driver is asked for, by filter or by `drivers`; computed from the
 * report_orders rows, one bucket per order, when `rowOnly` holds a condition on `o` no key answers (a
 * client, a status …) or the context asks for rows. A figure summed over either gives the same number.
 */
export const buckets = (
  rc: ReportContext,
  w: DateWindow,
  f: BucketFilter,
  opts: { drivers?: boolean; rowOnly?: RawBuilder<unknown>[] } = {},
): RawBuilder<unknown> => {
  const rowOnly = opts.rowOnly ?? [];
  const keyed = (alias: 'd' | 'o') => keyWhere(rc.scope, f, alias);
  if (rc.rowsOnly || rowOnly.length > 0) {
    return orderBuckets(
      sql`${pgZone(rc.tz)}::text`,
      allOf([sql`o.created_at >= ${w.startAt}`, sql`o.created_at < ${w.endAt}`, ...keyed('o'), ...rowOnly]),
    );
  }
  const table = opts.drivers || f.driver_id !== undefined ? sql`report_daily_drivers` : sql`report_daily`;
  return sql`SELECT * FROM ${table} d
    WHERE ${allOf([sql`d.day >= ${w.from}::date`, sql`d.day <= ${w.to}::date`, ...keyed('d')])}`;
};

/** Σ figure over the buckets `b`, as a number (counts and sums of one window fit a float8 exactly). */
export const total = (f: Figure): RawBuilder<number> => sql<number>`coalesce(sum(b.${sql.ref(f)}), 0)::float8`;

/** The first day of the period (ISO week from Monday) after the one `day` falls in. */
const nextPeriod = (day: string, g: 'week' | 'month'): string => {
  const d = new Date(`${day}T00:00:00Z`);
  if (g === 'month') return addMonths(`${day.slice(0, 7)}-01`, 1);
  return addDays(day, 7 - ((d.getUTCDay() + 6) % 7));
};

/** The last day of each week or month the window touches, clipped to the window, in order. */
const periodEnds = (w: DateWindow, g: 'week' | 'month'): string[] => {
  const ends: string[] = [];
  for (let start = w.from; start <= w.to; start = nextPeriod(start, g)) {
    const end = addDays(nextPeriod(start, g), -1);
    ends.push(end < w.to ? end : w.to);
  }
  return ends;
};

/**
 * Per driver, city and period of the window (weeks or months): `period_start` (its first day) and the
 * figures, each the driver's running total as of the period's last day minus that as of the day before
 * the period (report_driver_running). Two index lookups per driver, city and period.
 */
export const periodTotals = (
  rc: ReportContext,
  w: DateWindow,
  g: 'week' | 'month',
  driverId?: number,
): RawBuilder<unknown> => {
  const bounds = [addDays(w.from, -1), ...periodEnds(w, g)];
  const keys: RawBuilder<unknown>[] = inScope(rc.scope, sql`c.city_key`);
  if (driverId !== undefined) keys.push(sql`c.driver_id = ${driverId}`);
  return sql`SELECT * FROM (SELECT date_trunc(${g}, t.day::timestamp)::date AS period_start, t.driver_id, t.k,
      ${sql.join(
        FIGURES.map(
          (f) => sql`(t.${sql.id(f)} - lag(t.${sql.id(f)}) OVER (PARTITION BY t.driver_id, t.city_key
        ORDER BY t.k))::float8 AS ${sql.id(f)}`,
        ),
      )}
    FROM (
      SELECT c.driver_id, c.city_key, x.k, x.day,
      ${sql.join(FIGURES.map((f) => sql`coalesce(r.${sql.id(f)}, 0) AS ${sql.id(f)}`))}
      FROM report_driver_cities c
      CROSS JOIN unnest(${bounds}::date[]) WITH ORDINALITY AS x(day, k)
      LEFT JOIN LATERAL (
        SELECT * FROM report_driver_running r
        WHERE r.driver_id = c.driver_id AND r.city_key = c.city_key AND r.day <= x.day ORDER BY r.day DESC LIMIT 1
      ) r ON TRUE
      WHERE ${allOf(keys)}
    ) t) d WHERE d.k > 1`;
};
