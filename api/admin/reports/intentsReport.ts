import { sql, type RawBuilder } from 'kysely';
import { z } from 'zod';
import { centsToUsd } from '../../../domain/money.js';
import type { OrderStatus } from '../../../domain/order/events.js';
import { UNDELIVERED_END } from '../../../domain/order/rules.js';
import { CANCELLATION_REASON_CODES, cancellationReasonLabel } from './cancellationsReport.js';
import { FAILURE_REASON_LABELS, type FailureReason } from './labels.js';
import { ordersFrom, PageMetaSchema } from './ordersReport.js';
import { report, type ReportContext } from './report.js';
import {
  LAST_30_DAYS,
  boolParam,
  dateFiltersWithin,
  rangeRules,
  direction,
  cityIdParam,
  idParam,
  limitParam,
  page,
  resolveWindow,
  sortParam,
} from './reportQuery.js';
import { buckets, keyWhere, total } from './dailyBuckets.js';
import { allOf, batchesOf, pageMeta, pageOf, type SortedSource } from './sortedRows.js';

/**
 * Non-converted purchase intents: orders created in the window that ended CANCELLED or
 * EXPIRED, with their offers. Totals set them against every order published in the window.
 */

const SORT_KEYS = [
  'id',
  'created_at',
  'final_status',
  'client_name',
  'liters_requested',
  'unrealized_usd',
  'offers_count',
  'minutes_to_outcome',
] as const;
type SortKey = (typeof SORT_KEYS)[number];

const FAILURE_REASONS = Object.keys(FAILURE_REASON_LABELS) as [FailureReason, ...FailureReason[]];

const IntentsQuery = z.object({
  city_id: cityIdParam.optional(),
  client_id: idParam.optional(),
  water_type: z.enum(['POTABLE', 'INDUSTRIAL']).optional(),
  failure_reason: z.enum(FAILURE_REASONS).optional(),
  has_offers: boolParam.optional(),
  cancellation_reason_code: z.enum(CANCELLATION_REASON_CODES).optional(),
  ...dateFiltersWithin(LAST_30_DAYS),
  sort: sortParam(SORT_KEYS),
  direction,
  limit: limitParam(100, 25),
  page,
});
type IntentsQuery = z.infer<typeof IntentsQuery>;

const SORT: Record<SortKey, RawBuilder<unknown>> = {
  id: sql`r.id`,
  created_at: sql`r.created_at`,
  final_status: sql`r.status`,
  client_name: sql`coalesce(r.client_name, '')`,
  liters_requested: sql`r.liters_requested`,
  unrealized_usd: sql`r.client_pays_cents`,
  offers_count: sql`r.offers_count`,
  minutes_to_outcome: sql`coalesce(r.minutes_to_outcome, -1)`,
};

const FAILURE_REASON = sql`CASE
  WHEN o.status = 'EXPIRED' AND o.offers_count = 0 THEN 'expired_no_offers'
  WHEN o.status = 'EXPIRED' THEN 'expired_with_offers'
  WHEN o.cancelled_by_role = 'CLIENT' THEN 'cancelled_by_client'
  WHEN o.cancelled_by_role = 'DRIVER' THEN 'cancelled_by_driver'
  ELSE 'cancelled_by_admin' END`;

interface Row {
  id: number;
  created_at: Date;
  ended_at: Date;
  status: OrderStatus;
  failure_reason: FailureReason;
  cancel_reason_code: string | null;
  cancel_reason: string | null;
  city_id: number | null;
  city_name: string | null;
  client_id: number;
  client_name: string | null;
  water_type: string;
  liters_requested: number;
  base_price_cents: number;
  client_pays_cents: number;
  minutes_to_outcome: number;
  offers_count: number;
  best_offer_cents: number | null;
  offers_at_base_price: number;
  had_accepted_offer: boolean;
}

/** Filters that apply to every published order (the totals' base) and those that pick among the intents. */
const baseWhere = (rc: ReportContext, q: IntentsQuery): RawBuilder<unknown>[] => {
  const w = resolveWindow(q, rc.today, rc.tz, LAST_30_DAYS);
  const where = [
    sql`o.created_at >= ${w.startAt}`,
    sql`o.created_at < ${w.endAt}`,
    ...keyWhere(rc.scope, { city_id: q.city_id, water_type: q.water_type }, 'o'),
  ];
  if (q.client_id !== undefined) where.push(sql`o.client_id = ${q.client_id}`);
  return where;
};

const source = (rc: ReportContext, q: IntentsQuery, named = true): RawBuilder<unknown> => {
  const where = [...baseWhere(rc, q), sql`o.status IN (${sql.join(UNDELIVERED_END.map((s) => sql.lit(s)))})`];
  if (q.failure_reason) where.push(sql`${FAILURE_REASON} = ${q.failure_reason}`);
  if (q.has_offers !== undefined) where.push(q.has_offers ? sql`o.offers_count > 0` : sql`o.offers_count = 0`);
  if (q.cancellation_reason_code) where.push(sql`o.cancel_reason_code = ${q.cancellation_reason_code}`);
  return sql`SELECT ${FAILURE_REASON} AS failure_reason, ${ordersFrom(named)} WHERE ${allOf(where)}`;
};

const sorted = (rc: ReportContext, q: IntentsQuery): SortedSource => ({
  source: source(rc, q),
  key: SORT[q.sort ?? 'created_at'],
  dir: q.direction ?? 'desc',
  pickByKey: true,
});

const usd = (cents: number | null) => (cents === null ? null : centsToUsd(cents));

const toItem = (r: Row): Omit<z.infer<typeof ItemSchema>, 'offers'> => ({
  id: r.id,
  created_at: r.created_at.toISOString(),
  ended_at: r.ended_at.toISOString(),
  final_status: r.status,
  failure_reason: r.failure_reason,
  failure_reason_label: FAILURE_REASON_LABELS[r.failure_reason],
  cancellation_reason_code: r.cancel_reason_code,
  cancellation_reason_label: cancellationReasonLabel(r.cancel_reason_code),
  cancellation_reason_note: r.cancel_reason,
  city_id: r.city_id,
  city_name: r.city_name,
  client_id: r.client_id,
  client_name: r.client_name,
  water_type: r.water_type,
  liters_requested: r.liters_requested,
  base_price_usd: centsToUsd(r.base_price_cents),
  unrealized_usd: centsToUsd(r.client_pays_cents),
  minutes_to_outcome: r.minutes_to_outcome,
  offers_count: r.offers_count,
  best_offer_usd: usd(r.best_offer_cents),
  offers_at_base_price: r.offers_at_base_price,
  had_accepted_offer: r.had_accepted_offer,
});
type Item = ReturnType<typeof toItem>;

const OfferSchema = z.object({
  driver_id: z.number().int(),
  driver_name: z.string().nullable(),
  offer_price_usd: z.number(),
  at_base_price: z.boolean(),
  status: z.string(),
  created_at: z.string(),
});

const ItemSchema = z.object({
  id: z.number().int(),
  created_at: z.string(),
  ended_at: z.string(),
  final_status: z.enum(UNDELIVERED_END),
  failure_reason: z.enum(FAILURE_REASONS),
  failure_reason_label: z.string(),
  cancellation_reason_code: z.string().nullable(),
  cancellation_reason_label: z.string().nullable(),
  cancellation_reason_note: z.string().nullable(),
  city_id: z.number().int().nullable(),
  city_name: z.string().nullable(),
  client_id: z.number().int(),
  client_name: z.string().nullable(),
  water_type: z.string(),
  liters_requested: z.number().int(),
  base_price_usd: z.number(),
  unrealized_usd: z.number(),
  minutes_to_outcome: z.number(),
  offers_count: z.number().int(),
  best_offer_usd: z.number().nullable(),
  offers_at_base_price: z.number().int(),
  had_accepted_offer: z.boolean(),
  offers: z.array(OfferSchema),
});

const Totals = z.object({
  total_intents: z.number().int(),
  converted: z.number().int(),
  not_converted: z.number().int(),
  conversion_pct: z.number(),
  expired_no_offers: z.number().int(),
  expired_with_offers: z.number().int(),
  cancelled_by_client: z.number().int(),
  cancelled_by_driver: z.number().int(),
  cancelled_by_admin: z.number().int(),
  with_offers: z.number().int(),
  without_offers: z.number().int(),
  unrealized_usd: z.number(),
});

/** conversion_pct = delivered ÷ published × 100, one decimal (0 when nothing was published). */
export const percent = (part: number, whole: number): number =>
  whole === 0 ? 0 : Math.round((part * 1000) / whole) / 10;

/**
 * Published orders and the intents among them, summed over the window's daily buckets; a filter among the
 * intents (failure reason, offers, cancellation reason) counts the intents over their rows.
 */
const totals = async (rc: ReportContext, q: IntentsQuery): Promise<{ n: number; sums: z.infer<typeof Totals> }> => {
  const w = resolveWindow(q, rc.today, rc.tz, LAST_30_DAYS);
  const rowOnly = q.client_id === undefined ? [] : [sql`o.client_id = ${q.client_id}`];
  const narrowed =
    q.failure_reason !== undefined || q.has_offers !== undefined || q.cancellation_reason_code !== undefined;
  const [published, intents] = await Promise.all([
    sql<
      Record<string, number>
    >`SELECT ${total('orders')} AS n, ${total('delivered')} AS delivered, ${total('cancelled')} AS cancelled,
      ${total('expired')} AS expired,
        ${total('expired_no_offers')} AS expired_no_offers, ${total('client_cancellations')} AS cancelled_by_client,
        ${total('driver_cancellations')} AS cancelled_by_driver,
        ${total('ended_with_offers')} AS with_offers, ${total('unrealized_cents')} AS unrealized_cents
      FROM (${buckets(rc, w, { city_id: q.city_id, water_type: q.water_type }, { rowOnly })}) b`.execute(rc.db),
    narrowed
      ? sql<Record<string, number>>`SELECT count(*)::int AS n,
          ${sql.join(
            FAILURE_REASONS.map(
              (f) => sql`count(*)
            FILTER (WHERE r.failure_reason = ${f})::int AS ${sql.id(f)}`,
            ),
          )},
          count(*) FILTER (WHERE r.offers_count > 0)::int AS with_offers,
          coalesce(sum(r.client_pays_cents), 0)::float8 AS unrealized_cents
        FROM (${source(rc, q, false)}) r`.execute(rc.db)
      : undefined,
  ]);
  const b = published.rows[0];
  const t = intents?.rows[0] ?? {
    n: b.cancelled + b.expired,
    expired_no_offers: b.expired_no_offers,
    expired_with_offers: b.expired - b.expired_no_offers,
    cancelled_by_client: b.cancelled_by_client,
    cancelled_by_driver: b.cancelled_by_driver,
    cancelled_by_admin: b.cancelled - b.cancelled_by_client - b.cancelled_by_driver,
    with_offers: b.with_offers,
    unrealized_cents: b.unrealized_cents,
  };
  return {
    n: t.n,
    sums: {
      total_intents: b.n,
      converted: b.delivered,
      not_converted: t.n,
      conversion_pct: percent(b.delivered, b.n),
      expired_no_offers: t.expired_no_offers,
      expired_with_offers: t.expired_with_offers,
      cancelled_by_client: t.cancelled_by_client,
      cancelled_by_driver: t.cancelled_by_driver,
      cancelled_by_admin: t.cancelled_by_admin,
      with_offers: t.with_offers,
      without_offers: t.n - t.with_offers,
      unrealized_usd: centsToUsd(t.unrealized_cents),
    },
  };
};

const offersOf = async (rc: ReportContext, orderIds: number[]) => {
  if (orderIds.length === 0) return new Map<number, z.infer<typeof OfferSchema>[]>();
  const rows = await rc.db
    .selectFrom('report_order_offers as f')
    .leftJoin('report_drivers as d', 'd.driver_id', 'f.driver_id')
    .select([
      'f.order_id',
      'f.driver_id',
      'd.name as driver_name',
      'f.offer_price_cents',
      'f.at_base_price',
      'f.status',
      'f.created_at',
    ])
    .where('f.order_id', 'in', orderIds)
    .orderBy('f.order_id')
    .orderBy('f.id')
    .execute();
  const byOrder = new Map<number, z.infer<typeof OfferSchema>[]>();
  for (const f of rows) {
    const list = byOrder.get(f.order_id) ?? [];
    list.push({
      driver_id: f.driver_id,
      driver_name: f.driver_name,
      offer_price_usd: centsToUsd(f.offer_price_cents),
      at_base_price: f.at_base_price,
      status: f.status,
      created_at: f.created_at.toISOString(),
    });
    byOrder.set(f.order_id, list);
  }
  return byOrder;
};

export const intentsReport = report({
  path: '/admin/reports/orders/intents',
  summary: 'Non-converted purchase intents with their offers',
  file: 'reporte_intenciones',
  query: IntentsQuery,
  rules: rangeRules(LAST_30_DAYS),
  response: z.object({ items: z.array(ItemSchema), meta: PageMetaSchema, totals: Totals }),
  columns: [
    { header: 'Fecha', type: 'datetime', value: (i: Item) => i.created_at },
    { header: 'Pedido', type: 'integer', value: (i) => i.id },
    { header: 'Estado final', type: 'text', value: (i) => i.final_status },
    { header: 'Motivo de fallo', type: 'text', value: (i) => i.failure_reason_label },
    { header: 'Motivo cancelación', type: 'text', value: (i) => i.cancellation_reason_label },
    { header: 'Nota', type: 'text', value: (i) => i.cancellation_reason_note },
    { header: 'Ciudad', type: 'text', value: (i) => i.city_name },
    { header: 'Cliente', type: 'text', value: (i) => i.client_name },
    { header: 'Tipo de agua', type: 'text', value: (i) => i.water_type },
    { header: 'Litros solicitados', type: 'integer', value: (i) => i.liters_requested },
    { header: 'Precio base (USD)', type: 'number', value: (i) => i.base_price_usd },
    { header: 'Monto no concretado (USD)', type: 'number', value: (i) => i.unrealized_usd },
    { header: 'Tiempo hasta desenlace (min)', type: 'number', value: (i) => i.minutes_to_outcome },
    { header: 'N.º ofertas', type: 'integer', value: (i) => i.offers_count },
    { header: 'Mejor oferta (USD)', type: 'number', value: (i) => i.best_offer_usd },
    { header: 'Ofertas a precio base', type: 'integer', value: (i) => i.offers_at_base_price },
    { header: 'Tuvo oferta aceptada', type: 'boolean', value: (i) => i.had_accepted_offer },
  ],
  list: async (rc, q) => {
    const s = sorted(rc, q);
    const [rows, { n, sums }] = await Promise.all([pageOf<Row>(rc.db, s, q.limit, q.page), totals(rc, q)]);
    const offers = await offersOf(
      rc,
      rows.map((r) => r.id),
    );
    return {
      items: rows.map((r) => ({ ...toItem(r), offers: offers.get(r.id) ?? [] })),
      meta: pageMeta(n, q.limit, q.page),
      totals: sums,
    };
  },
  // The export leaves offers[] out (spec): rows only.
  items: async function* (rc, q) {
    for await (const r of batchesOf<Row>(rc.db, sorted(rc, q))) yield toItem(r);
  },
});
