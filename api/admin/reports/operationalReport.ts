import { sql } from 'kysely';
import { z } from 'zod';
import { centsToUsd } from '../../../domain/money.js';
import { percent } from './intentsReport.js';
import { report, type ReportContext } from './report.js';
import {
  LAST_30_DAYS,
  addDays,
  dateFiltersWithin,
  rangeRules,
  daysBetween,
  direction,
  cityIdParam,
  idParam,
  resolveWindow,
  sortParam,
  windowOf,
  type DateWindow,
} from './reportQuery.js';
import { buckets, total } from './dailyBuckets.js';

/**
 * Daily operations: one row per calendar day of the window (by creation date), its
 * totals, and the comparison with the window of the same length just before. Not paginated: at most 30
 * rows, computed from the daily buckets of each window.
 */

const SORT_KEYS = [
  'date',
  'published',
  'accepted',
  'delivered',
  'cancelled',
  'expired',
  'conversion_pct',
  'liters_requested',
  'liters_delivered',
  'avg_ticket_usd',
  'avg_acceptance_minutes',
  'avg_delivery_minutes',
  'active_drivers',
  'gross_income_usd',
  'commission_usd',
] as const;

const OperationalQuery = z.object({
  city_id: cityIdParam.optional(),
  client_id: idParam.optional(),
  driver_id: idParam.optional(),
  water_type: z.enum(['POTABLE', 'INDUSTRIAL']).optional(),
  ...dateFiltersWithin(LAST_30_DAYS),
  sort: sortParam(SORT_KEYS),
  direction,
});
type OperationalQuery = z.infer<typeof OperationalQuery>;

interface Sums {
  day: string | null;
  published: number;
  accepted: number;
  delivered: number;
  cancelled: number;
  expired: number;
  liters_requested: number;
  liters_delivered: number;
  gross_cents: number;
  commission_cents: number;
  acceptance_tenths: number;
  acceptance_n: number;
  delivery_tenths: number;
  delivery_n: number;
  active_drivers: number;
}

const ZERO: Omit<Sums, 'day'> = {
  published: 0,
  accepted: 0,
  delivered: 0,
  cancelled: 0,
  expired: 0,
  liters_requested: 0,
  liters_delivered: 0,
  gross_cents: 0,
  commission_cents: 0,
  acceptance_tenths: 0,
  acceptance_n: 0,
  delivery_tenths: 0,
  delivery_n: 0,
  active_drivers: 0,
};

/**
 * Over the whole window (day null), and per day too when byDay (grouping sets), summed over the day
 * buckets (dailyBuckets.ts); a client filter reads the rows. Averages are carried as sums and counts
 * (minutes in tenths), so totals stay exact. By day the buckets are the drivers' (the same orders split by
 * driver, unassigned ones under none), so one pass also counts the active drivers.
 */
const sums = async (rc: ReportContext, q: OperationalQuery, w: DateWindow, byDay: boolean): Promise<Sums[]> => {
  const filter = { city_id: q.city_id, driver_id: q.driver_id, water_type: q.water_type };
  const rowOnly = q.client_id === undefined ? [] : [sql`o.client_id = ${q.client_id}`];
  const grouping = byDay ? sql`GROUP BY GROUPING SETS ((b.day), ())` : sql``;
  const dayOf = byDay ? sql`to_char(b.day, 'YYYY-MM-DD')` : sql`NULL`;
  const activeDrivers = byDay ? sql`count(DISTINCT b.driver_id) FILTER (WHERE b.accepted > 0)::int` : sql`0`;
  const { rows } = await sql<Sums>`SELECT ${dayOf} AS day,
      ${total('orders')} AS published, ${total('accepted')} AS accepted, ${total('delivered')} AS delivered,
      ${total('cancelled')} AS cancelled, ${total('expired')} AS expired,
      ${total('liters_requested')} AS liters_requested, ${total('liters_delivered')} AS liters_delivered,
      ${total('gross_cents')} AS gross_cents, ${total('commission_cents')} AS commission_cents,
      ${total('acceptance_tenths')} AS acceptance_tenths, ${total('acceptance_n')} AS acceptance_n,
      ${total('delivery_tenths')} AS delivery_tenths, ${total('delivery_n')} AS delivery_n,
      ${activeDrivers} AS active_drivers
    FROM (${buckets(rc, w, filter, { rowOnly, drivers: byDay })}) b ${grouping}`.execute(rc.db);
  return rows;
};

const round1 = (n: number) => Math.round(n * 10) / 10;
const avg = (sum: number, n: number, digits: number) =>
  n === 0 ? null : Math.round((sum / n) * 10 ** digits) / 10 ** digits;
/** The mean of minutes summed in tenths, to one decimal. */
const avgMinutes = (tenths: number, n: number) => (n === 0 ? null : Math.round(tenths / n) / 10);

const figures = (s: Omit<Sums, 'day'>) => ({
  published: s.published,
  accepted: s.accepted,
  delivered: s.delivered,
  cancelled: s.cancelled,
  expired: s.expired,
  conversion_pct: percent(s.delivered, s.published),
  liters_requested: s.liters_requested,
  liters_delivered: s.liters_delivered,
  avg_ticket_usd: s.delivered === 0 ? null : avg(s.gross_cents / 100, s.delivered, 2),
  avg_acceptance_minutes: avgMinutes(s.acceptance_tenths, s.acceptance_n),
  avg_delivery_minutes: avgMinutes(s.delivery_tenths, s.delivery_n),
  active_drivers: s.active_drivers,
  gross_income_usd: centsToUsd(s.gross_cents),
  commission_usd: centsToUsd(s.commission_cents),
});
type Figures = ReturnType<typeof figures>;
type Item = Figures & { date: string };

/** (now − previous) ÷ previous × 100, one decimal; null when the previous value is 0. */
export const variationPct = (now: number, previous: number): number | null =>
  previous === 0 ? null : round1(((now - previous) / previous) * 100);

const daysOf = (w: DateWindow): string[] =>
  Array.from({ length: daysBetween(w.from, w.to) + 1 }, (_, i) => addDays(w.from, i));

const itemsOf = (q: OperationalQuery, w: DateWindow, grouped: Sums[]): Item[] => {
  const byDay = new Map(grouped.filter((s) => s.day !== null).map((s) => [s.day!, s]));
  const items = daysOf(w).map((date) => ({ date, ...figures(byDay.get(date) ?? ZERO) }));
  if (!q.sort) return items;
  const key = q.sort;
  const sign = (q.direction ?? 'desc') === 'asc' ? 1 : -1;
  // Nulls sort lowest, as in every report; equal values keep the calendar order.
  const value = (i: Item) => (key === 'date' ? Date.parse(i.date) : (i[key] ?? -Infinity));
  return [...items].sort((a, b) =>
    value(a) === value(b) ? a.date.localeCompare(b.date) : (value(a) < value(b) ? -1 : 1) * sign,
  );
};

const FiguresSchema = z.object({
  published: z.number().int(),
  accepted: z.number().int(),
  delivered: z.number().int(),
  cancelled: z.number().int(),
  expired: z.number().int(),
  conversion_pct: z.number(),
  liters_requested: z.number().int(),
  liters_delivered: z.number().int(),
  avg_ticket_usd: z.number().nullable(),
  avg_acceptance_minutes: z.number().nullable(),
  avg_delivery_minutes: z.number().nullable(),
  active_drivers: z.number().int(),
  gross_income_usd: z.number(),
  commission_usd: z.number(),
});

const nullableNumber = z.number().nullable();
const Comparison = z.object({
  previous_period: z.object({ from: z.string(), to: z.string() }),
  previous: z.object({
    published: z.number().int(),
    delivered: z.number().int(),
    gross_income_usd: z.number(),
    commission_usd: z.number(),
    conversion_pct: z.number(),
  }),
  variation_pct: z.object({
    published: nullableNumber,
    delivered: nullableNumber,
    cancelled: nullableNumber,
    expired: nullableNumber,
    gross_income_usd: nullableNumber,
    commission_usd: nullableNumber,
    conversion_pct: nullableNumber,
  }),
});

const comparison = (now: Figures, prev: Figures, w: DateWindow): z.infer<typeof Comparison> => ({
  previous_period: { from: w.from, to: w.to },
  previous: {
    published: prev.published,
    delivered: prev.delivered,
    gross_income_usd: prev.gross_income_usd,
    commission_usd: prev.commission_usd,
    conversion_pct: prev.conversion_pct,
  },
  variation_pct: {
    published: variationPct(now.published, prev.published),
    delivered: variationPct(now.delivered, prev.delivered),
    cancelled: variationPct(now.cancelled, prev.cancelled),
    expired: variationPct(now.expired, prev.expired),
    gross_income_usd: variationPct(now.gross_income_usd, prev.gross_income_usd),
    commission_usd: variationPct(now.commission_usd, prev.commission_usd),
    conversion_pct: variationPct(now.conversion_pct, prev.conversion_pct),
  },
});

export const operationalReport = report({
  path: '/admin/reports/orders/operational',
  summary: 'Daily operations: one row per calendar day, totals and the previous period',
  file: 'reporte_operativo',
  query: OperationalQuery,
  rules: rangeRules(LAST_30_DAYS),
  response: z.object({
    items: z.array(FiguresSchema.extend({ date: z.string() })),
    totals: FiguresSchema,
    comparison: Comparison,
  }),
  columns: [
    { header: 'Fecha', type: 'date', value: (i: Item) => i.date },
    { header: 'Publicados', type: 'integer', value: (i) => i.published },
    { header: 'Aceptados', type: 'integer', value: (i) => i.accepted },
    { header: 'Entregados', type: 'integer', value: (i) => i.delivered },
    { header: 'Cancelados', type: 'integer', value: (i) => i.cancelled },
    { header: 'Expirados', type: 'integer', value: (i) => i.expired },
    { header: 'Conversión (%)', type: 'number', value: (i) => i.conversion_pct },
    { header: 'Litros solicitados', type: 'integer', value: (i) => i.liters_requested },
    { header: 'Litros entregados', type: 'integer', value: (i) => i.liters_delivered },
    { header: 'Ticket promedio (USD)', type: 'number', value: (i) => i.avg_ticket_usd },
    { header: 'T. medio aceptación (min)', type: 'number', value: (i) => i.avg_acceptance_minutes },
    { header: 'T. medio entrega (min)', type: 'number', value: (i) => i.avg_delivery_minutes },
    { header: 'Conductores activos', type: 'integer', value: (i) => i.active_drivers },
    { header: 'Ingreso bruto (USD)', type: 'number', value: (i) => i.gross_income_usd },
    { header: 'Comisión (USD)', type: 'number', value: (i) => i.commission_usd },
  ],
  list: async (rc, q) => {
    const w = resolveWindow(q, rc.today, rc.tz, LAST_30_DAYS);
    const span = daysBetween(w.from, w.to) + 1;
    const prevWindow = windowOf(addDays(w.from, -span), addDays(w.from, -1), rc.tz);
    const [grouped, [prev]] = await Promise.all([sums(rc, q, w, true), sums(rc, q, prevWindow, false)]);
    const totals = figures(grouped.find((s) => s.day === null) ?? ZERO);
    return { items: itemsOf(q, w, grouped), totals, comparison: comparison(totals, figures(prev ?? ZERO), prevWindow) };
  },
  items: async function* (rc, q) {
    const w = resolveWindow(q, rc.today, rc.tz, LAST_30_DAYS);
    yield* itemsOf(q, w, await sums(rc, q, w, true));
  },
});
