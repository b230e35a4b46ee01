import { sql, type RawBuilder } from 'kysely';
import { z } from 'zod';
import { centsToUsd } from '../../../domain/money.js';
import { buckets, periodTotals, total } from './dailyBuckets.js';
import { percent } from './intentsReport.js';
import { PageMetaSchema } from './ordersReport.js';
import { report, type ReportContext } from './report.js';
import {
  LAST_3_MONTHS,
  dateFiltersWithin,
  rangeRules,
  idParam,
  limitParam,
  page,
  resolveWindow,
  windowOf,
  type DateWindow,
} from './reportQuery.js';
import { pageMeta } from './sortedRows.js';
import { queryInteger } from '../../schemas.js';

/**
 * Driver performance: one row per driver and period (day, ISO week or month of the
 * order's creation in the report time zone), ranked within each period among the drivers who reach
 * min_deliveries. Days sum the daily driver buckets; weeks and months subtract the drivers' running totals
 * at each period's ends. Not sortable: rows come by period, then rank. The columns the spec marks as
 * always null (online_hours, notified, acceptance_rate, avg_response_minutes) stay null. Paged like every
 * other report list (limit, page, meta), so a day-by-day month of every driver answers a page, not 60,000 rows.
 */

const RANK_BY = ['deliveries', 'liters_delivered', 'earnings_usd', 'rating'] as const;

const PerformanceQuery = z.object({
  ...dateFiltersWithin(LAST_3_MONTHS),
  granularity: z.enum(['day', 'week', 'month']).default('month'),
  driver_id: idParam.optional(),
  min_deliveries: queryInteger(0, 1_000_000).default(1),
  rank_by: z.enum(RANK_BY).default('deliveries'),
  limit: limitParam(100, 25),
  page,
});
type PerformanceQuery = z.infer<typeof PerformanceQuery>;

const PERIOD_FORMAT = { day: 'YYYY-MM-DD', week: 'IYYY-"W"IW', month: 'YYYY-MM' } as const;

const RANK_KEY: Record<(typeof RANK_BY)[number], RawBuilder<unknown>> = {
  deliveries: sql`p.deliveries`,
  liters_delivered: sql`p.liters_delivered`,
  earnings_usd: sql`p.earnings_cents`,
  rating: sql`coalesce(p.rating, -1)`,
};

interface Row {
  period: string;
  driver_id: number;
  driver_name: string | null;
  rank: number | null;
  accepted: number;
  deliveries: number;
  own_cancellations: number;
  avg_delivery_minutes: number | null;
  liters_agreed: number;
  liters_delivered: number;
  liters_requested_delivered: number;
  earnings_cents: number;
  rating: number | null;
  incidents: number;
  /** Rows in the whole window, before the page is cut. */
  of: number;
}

/** Rows to skip and rows to keep, or every row (the export). */
type Slice = { offset: number; limit: number } | 'all';

/**
 * The window's rows by period, then rank. Periods are grouped and sorted as their first day (a date, not
 * the label: text sorts by collation and spilled to disk at a month of days), labelled on the way out.
 */
const rankedRows = async (rc: ReportContext, q: PerformanceQuery, w: DateWindow, slice: Slice): Promise<Row[]> => {
  const source =
    q.granularity === 'day' || rc.rowsOnly
      ? sql`SELECT date_trunc(${q.granularity}, b.day::timestamp)::date AS period_start, b.*
          FROM (${buckets(rc, w, { driver_id: q.driver_id }, { drivers: true })}) b`
      : periodTotals(rc, w, q.granularity, q.driver_id);
  const { rows } = await sql<Row>`WITH p AS (
      SELECT b.period_start, b.driver_id,
        ${total('accepted')} AS accepted, ${total('delivered')} AS deliveries,
        ${total('driver_cancellations')} AS own_cancellations,
        round(sum(b.delivery_tenths)::numeric / nullif(sum(b.delivery_n), 0)::numeric / 10, 1)::float8
          AS avg_delivery_minutes,
        ${total('liters_agreed')} AS liters_agreed, ${total('liters_delivered')} AS liters_delivered,
        ${total('liters_requested_delivered')} AS liters_requested_delivered,
        ${total('earnings_cents')} AS earnings_cents,
        round(sum(b.rating_sum)::numeric / nullif(sum(b.rating_n), 0)::numeric, 2)::float8 AS rating,
        ${total('incidents')} AS incidents
      FROM (${source}) b
      WHERE b.driver_id IS NOT NULL GROUP BY 1, 2 HAVING sum(b.orders) > 0),
    ranked AS (SELECT p.*, count(*) OVER ()::int AS of,
      CASE WHEN p.deliveries >= ${q.min_deliveries}
        THEN (row_number() OVER (PARTITION BY p.period_start, p.deliveries >= ${q.min_deliveries}
          ORDER BY ${RANK_KEY[q.rank_by]} DESC, p.driver_id))::int END AS rank
      FROM p ORDER BY p.period_start, rank NULLS LAST, p.driver_id
      ${slice === 'all' ? sql`` : sql`LIMIT ${slice.limit} OFFSET ${slice.offset}`})
    SELECT to_char(r.period_start, ${PERIOD_FORMAT[q.granularity]}) AS period, r.*, d.name AS driver_name
    FROM ranked r LEFT JOIN report_drivers d ON d.driver_id = r.driver_id
    ORDER BY r.period_start, r.rank NULLS LAST, r.driver_id`.execute(rc.db);
  return rows;
};

/** How many rows each day of the window has (drivers with orders that day), in day order. */
const rowsPerDay = async (
  rc: ReportContext,
  q: PerformanceQuery,
  w: DateWindow,
): Promise<{ day: string; n: number }[]> => {
  const { rows } = await sql<{
    day: string;
    n: number;
  }>`SELECT to_char(b.day, 'YYYY-MM-DD') AS day, count(DISTINCT b.driver_id) FILTER (WHERE b.orders > 0)::int AS n
    FROM (${buckets(rc, w, { driver_id: q.driver_id }, { drivers: true })}) b WHERE b.driver_id IS NOT NULL
    GROUP BY b.day ORDER BY b.day`.execute(rc.db);
  return rows;
};

/**
 * One page. By day, a month of every driver is tens of thousands of rows, so the page's days are found
 * from a count per day and only those days are ranked (ranks are per period, so they stay the same);
 * weeks and months are few enough to rank at once.
 */
const pageOfRows = async (
  rc: ReportContext,
  q: PerformanceQuery,
  w: DateWindow,
): Promise<{ rows: Row[]; of: number }> => {
  const offset = (q.page - 1) * q.limit;
  if (q.granularity !== 'day') {
    const rows = await rankedRows(rc, q, w, { offset, limit: q.limit });
    if (rows.length > 0 || offset === 0) return { rows, of: rows[0]?.of ?? 0 };
    // A page past the end holds no row to carry the count.
    return { rows, of: (await rankedRows(rc, q, w, { offset: 0, limit: 1 }))[0]?.of ?? 0 };
  }
  const perDay = await rowsPerDay(rc, q, w);
  let before = 0;
  let first: { day: string; before: number } | undefined;
  let last = w.to;
  for (const { day, n } of perDay) {
    if (!first && before + n > offset) first = { day, before };
    before += n;
    if (first && before >= offset + q.limit) {
      last = day;
      break;
    }
  }
  const of = perDay.reduce((sum, d) => sum + d.n, 0);
  if (!first) return { rows: [], of };
  return {
    rows: await rankedRows(rc, q, windowOf(first.day, last, rc.tz), { offset: offset - first.before, limit: q.limit }),
    of,
  };
};

const toItem = (r: Row): z.infer<typeof ItemSchema> => ({
  period: r.period,
  driver_id: r.driver_id,
  driver_name: r.driver_name,
  rank: r.rank,
  online_hours: null,
  notified: null,
  accepted: r.accepted,
  acceptance_rate: null,
  avg_response_minutes: null,
  deliveries: r.deliveries,
  completion_rate: r.accepted === 0 ? null : percent(r.deliveries, r.accepted),
  own_cancellations: r.own_cancellations,
  avg_delivery_minutes: r.avg_delivery_minutes,
  liters_agreed: r.liters_agreed,
  liters_delivered: r.liters_delivered,
  liters_accuracy:
    r.liters_requested_delivered === 0 ? null : percent(r.liters_delivered, r.liters_requested_delivered),
  earnings_usd: centsToUsd(r.earnings_cents),
  rating: r.rating,
  incidents: r.incidents,
});
type Item = ReturnType<typeof toItem>;

const ItemSchema = z.object({
  period: z.string(),
  driver_id: z.number().int(),
  driver_name: z.string().nullable(),
  rank: z.number().int().nullable(),
  online_hours: z.null(),
  notified: z.null(),
  accepted: z.number().int(),
  acceptance_rate: z.null(),
  avg_response_minutes: z.null(),
  deliveries: z.number().int(),
  completion_rate: z.number().nullable(),
  own_cancellations: z.number().int(),
  avg_delivery_minutes: z.number().nullable(),
  liters_agreed: z.number().int(),
  liters_delivered: z.number().int(),
  liters_accuracy: z.number().nullable(),
  earnings_usd: z.number(),
  rating: z.number().nullable(),
  incidents: z.number().int(),
});

export const performanceReport = report({
  path: '/admin/reports/drivers/performance',
  summary: 'Driver performance: one row per driver and period, ranked',
  file: 'reporte_desempeno_cisterneros',
  query: PerformanceQuery,
  rules: rangeRules(LAST_3_MONTHS),
  response: z.object({
    granularity: z.enum(['day', 'week', 'month']),
    items: z.array(ItemSchema),
    meta: PageMetaSchema,
  }),
  columns: [
    { header: 'Período', type: 'text', value: (i: Item) => i.period },
    { header: 'Conductor', type: 'text', value: (i) => i.driver_name },
    { header: 'Posición', type: 'integer', value: (i) => i.rank },
    { header: 'Horas en línea', type: 'number', value: (i) => i.online_hours },
    { header: 'Notificados', type: 'integer', value: (i) => i.notified },
    { header: 'Aceptados', type: 'integer', value: (i) => i.accepted },
    { header: 'Tasa aceptación (%)', type: 'number', value: (i) => i.acceptance_rate },
    { header: 'T. medio respuesta (min)', type: 'number', value: (i) => i.avg_response_minutes },
    { header: 'Entregas', type: 'integer', value: (i) => i.deliveries },
    { header: 'Tasa completitud (%)', type: 'number', value: (i) => i.completion_rate },
    { header: 'Cancelaciones', type: 'integer', value: (i) => i.own_cancellations },
    { header: 'T. medio entrega (min)', type: 'number', value: (i) => i.avg_delivery_minutes },
    { header: 'Litros pactados', type: 'integer', value: (i) => i.liters_agreed },
    { header: 'Litros entregados', type: 'integer', value: (i) => i.liters_delivered },
    { header: 'Precisión litros (%)', type: 'number', value: (i) => i.liters_accuracy },
    { header: 'Ganancia (USD)', type: 'number', value: (i) => i.earnings_usd },
    { header: 'Calificación', type: 'number', value: (i) => i.rating },
    { header: 'Incidencias', type: 'integer', value: (i) => i.incidents },
  ],
  list: async (rc, q) => {
    const { rows, of } = await pageOfRows(rc, q, resolveWindow(q, rc.today, rc.tz, LAST_3_MONTHS));
    return { granularity: q.granularity, items: rows.map(toItem), meta: pageMeta(of, q.limit, q.page) };
  },
  // Aggregated per driver and period: bounded by drivers × periods, never by the number of orders.
  items: async function* (rc, q) {
    for (const r of await rankedRows(rc, q, resolveWindow(q, rc.today, rc.tz, LAST_3_MONTHS), 'all')) yield toItem(r);
  },
});
