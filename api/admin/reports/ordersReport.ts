import { sql, type RawBuilder } from 'kysely';
import { z } from 'zod';
import { centsToUsd } from '../../../domain/money.js';
import { ORDER_STATUSES, type OrderStatus } from '../../../domain/order/events.js';
import { ORIGIN_LABELS, PAYMENT_STATUS_LABELS, statusLabel } from './labels.js';
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
  orderedPair,
  page,
  resolveWindow,
  sortParam,
} from './reportQuery.js';
import { buckets, keyWhere, total, type BucketFilter } from './dailyBuckets.js';
import { allOf, batchesOf, pageMeta, pageOf, type SortedSource } from './sortedRows.js';
import { queryInteger } from '../../schemas.js';
import { orderedPairRule, rules } from '../../crossFieldRules.js';

/** Detailed orders: one row per order of any state, by creation date. */

const SORT_KEYS = [
  'id',
  'created_at',
  'status',
  'water_type',
  'city_name',
  'client_name',
  'driver_name',
  'liters_requested',
  'liters_delivered',
  'liters_diff',
  'base_price_usd',
  'final_price_usd',
  'commission_usd',
  'driver_net_usd',
  'acceptance_minutes',
  'delivery_minutes',
  'rating',
  'incidents',
] as const;
type SortKey = (typeof SORT_KEYS)[number];

export const PAYMENT_METHOD_CODES = ['CASH_USD', 'EXCHANGE_PAY', 'PAYPROV_DI', 'PAYMENT_FORM', 'PAGO_MOVIL'] as const;
const rating = queryInteger(1, 5);

const OrdersQuery = z.object({
  city_id: cityIdParam.optional(),
  status: z.enum(ORDER_STATUSES).optional(),
  driver_id: idParam.optional(),
  client_id: idParam.optional(),
  water_type: z.enum(['POTABLE', 'INDUSTRIAL']).optional(),
  payment_method: z.enum(PAYMENT_METHOD_CODES).optional(),
  payment_status: z.enum(['confirmed', 'pending', 'failed']).optional(),
  origin: z.enum(['app', 'remate']).optional(),
  has_counter_offer: boolParam.optional(),
  has_incident: boolParam.optional(),
  rating_min: rating.optional(),
  rating_max: rating.optional().openapi({ description: 'Not below rating_min.' }),
  ...dateFiltersWithin(LAST_30_DAYS),
  sort: sortParam(SORT_KEYS),
  direction,
  limit: limitParam(100, 25),
  page,
});
type OrdersQuery = z.infer<typeof OrdersQuery>;

const SORT: Record<SortKey, RawBuilder<unknown>> = {
  id: sql`r.id`,
  created_at: sql`r.created_at`,
  status: sql`r.status`,
  water_type: sql`r.water_type`,
  city_name: sql`coalesce(r.city_name, '')`,
  client_name: sql`coalesce(r.client_name, '')`,
  driver_name: sql`coalesce(r.driver_name, '')`,
  liters_requested: sql`r.liters_requested`,
  liters_delivered: sql`coalesce(r.liters_delivered, -1)`,
  liters_diff: sql`coalesce(r.liters_diff, -2147483648)`,
  base_price_usd: sql`r.base_price_cents`,
  final_price_usd: sql`coalesce(r.final_price_cents, -1)`,
  commission_usd: sql`r.platform_revenue_cents`,
  driver_net_usd: sql`r.driver_receives_cents`,
  acceptance_minutes: sql`coalesce(r.acceptance_minutes, -1)`,
  delivery_minutes: sql`coalesce(r.delivery_minutes, -1)`,
  rating: sql`coalesce(r.rating, 0)`,
  incidents: sql`r.incidents`,
};

export interface OrderReportRow {
  id: number;
  created_at: Date;
  status: OrderStatus;
  city_id: number | null;
  city_name: string | null;
  client_id: number;
  client_name: string | null;
  driver_id: number | null;
  driver_name: string | null;
  plate: string | null;
  address: string;
  water_type: string;
  liters_requested: number;
  liters_delivered: number | null;
  liters_diff: number | null;
  base_price_cents: number;
  final_price_cents: number | null;
  payment_method: string;
  payment_method_label: string | null;
  payment_status: keyof typeof PAYMENT_STATUS_LABELS;
  platform_revenue_cents: number;
  solidary_fund_cents: number;
  driver_receives_cents: number;
  origin: keyof typeof ORIGIN_LABELS;
  has_counter_offer: boolean;
  acceptance_minutes: number | null;
  delivery_minutes: number | null;
  rating: number | null;
  incidents: number;
}

/**
 * The columns every order-based report reads and where from: with the names joined from their homes for
 * rows, without them for totals (which need none, and scan every row of the window).
 */
export const ordersFrom = (named: boolean) =>
  named
    ? sql`o.*, c.name AS city_name, u.name AS client_name, d.name AS driver_name, d.plate,
      pm.name AS payment_method_label
      FROM report_orders o
      LEFT JOIN cities c ON c.id = o.city_id
      LEFT JOIN users u ON u.id = o.client_id
      LEFT JOIN report_drivers d ON d.driver_id = o.driver_id
      LEFT JOIN payment_methods pm ON pm.code = o.payment_method`
    : sql`o.* FROM report_orders o`;

/** The filters of a detailed-orders query: those a daily bucket answers, and the conditions only rows answer. */
const filtersOf = (q: OrdersQuery) => {
  const rowOnly: RawBuilder<unknown>[] = [];
  if (q.status) rowOnly.push(sql`o.status = ${q.status}`);
  if (q.client_id !== undefined) rowOnly.push(sql`o.client_id = ${q.client_id}`);
  if (q.payment_method) rowOnly.push(sql`o.payment_method = ${q.payment_method}`);
  if (q.payment_status) rowOnly.push(sql`o.payment_status = ${q.payment_status}`);
  if (q.origin) rowOnly.push(sql`o.origin = ${q.origin}`);
  if (q.has_counter_offer !== undefined) rowOnly.push(sql`o.has_counter_offer = ${q.has_counter_offer}`);
  if (q.has_incident !== undefined) rowOnly.push(q.has_incident ? sql`o.incidents > 0` : sql`o.incidents = 0`);
  if (q.rating_min !== undefined) rowOnly.push(sql`o.rating >= ${q.rating_min}`);
  if (q.rating_max !== undefined) rowOnly.push(sql`o.rating <= ${q.rating_max}`);
  return {
    keyed: { city_id: q.city_id, driver_id: q.driver_id, water_type: q.water_type } satisfies BucketFilter,
    rowOnly,
  };
};

const windowOfQuery = (rc: ReportContext, q: OrdersQuery) => {
  orderedPair(q, 'rating_min', 'rating_max');
  return resolveWindow(q, rc.today, rc.tz, LAST_30_DAYS);
};

const source = (rc: ReportContext, q: OrdersQuery): RawBuilder<unknown> => {
  const w = windowOfQuery(rc, q);
  const { keyed, rowOnly } = filtersOf(q);
  const where = [
    sql`o.created_at >= ${w.startAt}`,
    sql`o.created_at < ${w.endAt}`,
    ...keyWhere(rc.scope, keyed, 'o'),
    ...rowOnly,
  ];
  return sql`SELECT ${ordersFrom(true)} WHERE ${allOf(where)}`;
};

const sorted = (rc: ReportContext, q: OrdersQuery): SortedSource => ({
  source: source(rc, q),
  key: SORT[q.sort ?? 'created_at'],
  dir: q.direction ?? 'desc',
  pickByKey: true,
});

const usd = (cents: number | null) => (cents === null ? null : centsToUsd(cents));

/** |delivered − requested| above 5 % of what was requested (docs/domain-rules.md, reports). */
export const litersDiffFlagged = (diff: number | null, requested: number): boolean =>
  diff !== null && Math.abs(diff) * 100 > requested * 5;

const toItem = (r: OrderReportRow): z.infer<typeof OrderItemSchema> => ({
  id: r.id,
  created_at: r.created_at.toISOString(),
  status: r.status,
  status_label: statusLabel(r.status),
  city_id: r.city_id,
  city_name: r.city_name,
  client_id: r.client_id,
  client_name: r.client_name,
  driver_id: r.driver_id,
  driver_name: r.driver_name,
  plate: r.plate,
  address: r.address,
  water_type: r.water_type,
  liters_requested: r.liters_requested,
  liters_delivered: r.liters_delivered,
  liters_diff: r.liters_diff,
  liters_diff_flagged: litersDiffFlagged(r.liters_diff, r.liters_requested),
  base_price_usd: centsToUsd(r.base_price_cents),
  final_price_usd: usd(r.final_price_cents),
  payment_method: r.payment_method,
  payment_method_label: r.payment_method_label ?? r.payment_method,
  payment_status: r.payment_status,
  commission_usd: centsToUsd(r.platform_revenue_cents),
  solidary_fund_usd: centsToUsd(r.solidary_fund_cents),
  driver_net_usd: centsToUsd(r.driver_receives_cents),
  origin: r.origin,
  has_counter_offer: r.has_counter_offer,
  acceptance_minutes: r.acceptance_minutes,
  delivery_minutes: r.delivery_minutes,
  rating: r.rating,
  incidents: r.incidents,
});
type OrderItem = ReturnType<typeof toItem>;

const OrderItemSchema = z.object({
  id: z.number().int(),
  created_at: z.string(),
  status: z.enum(ORDER_STATUSES),
  status_label: z.string(),
  city_id: z.number().int().nullable(),
  city_name: z.string().nullable(),
  client_id: z.number().int(),
  client_name: z.string().nullable(),
  driver_id: z.number().int().nullable(),
  driver_name: z.string().nullable(),
  plate: z.string().nullable(),
  address: z.string(),
  water_type: z.string(),
  liters_requested: z.number().int(),
  liters_delivered: z.number().int().nullable(),
  liters_diff: z.number().int().nullable(),
  liters_diff_flagged: z.boolean(),
  base_price_usd: z.number(),
  final_price_usd: z.number().nullable(),
  payment_method: z.string(),
  payment_method_label: z.string(),
  payment_status: z.enum(['confirmed', 'pending', 'failed']),
  commission_usd: z.number(),
  solidary_fund_usd: z.number(),
  driver_net_usd: z.number(),
  origin: z.enum(['app', 'remate']),
  has_counter_offer: z.boolean(),
  acceptance_minutes: z.number().nullable(),
  delivery_minutes: z.number().nullable(),
  rating: z.number().int().nullable(),
  incidents: z.number().int(),
});

export const PageMetaSchema = z.object({
  total: z.number().int(),
  per_page: z.number().int(),
  current_page: z.number().int(),
  last_page: z.number().int(),
});

const OrdersTotals = z.object({
  pedidos: z.number().int(),
  litros_solicitados: z.number().int(),
  litros_entregados: z.number().int(),
  monto_bruto_usd: z.number(),
  comision_usd: z.number(),
  neto_conductores_usd: z.number(),
});

/**
 * Money totals count delivered orders; orders and liters count
 * every row (docs/domain-rules.md). Summed over the daily buckets.
 */
const totals = async (
  rc: ReportContext,
  q: OrdersQuery,
): Promise<{ n: number; sums: z.infer<typeof OrdersTotals> }> => {
  const { keyed, rowOnly } = filtersOf(q);
  const { rows } = await sql<Record<string, number>>`SELECT
      ${total('orders')} AS pedidos, ${total('liters_requested')} AS litros_solicitados,
      ${total('liters_delivered')} AS litros_entregados,
      ${total('gross_cents')} AS monto_bruto_cents, ${total('commission_cents')} AS comision_cents,
      ${total('driver_net_cents')} AS neto_cents
    FROM (${buckets(rc, windowOfQuery(rc, q), keyed, { rowOnly })}) b`.execute(rc.db);
  const t = rows[0];
  return {
    n: t.pedidos,
    sums: {
      pedidos: t.pedidos,
      litros_solicitados: t.litros_solicitados,
      litros_entregados: t.litros_entregados,
      monto_bruto_usd: centsToUsd(t.monto_bruto_cents),
      comision_usd: centsToUsd(t.comision_cents),
      neto_conductores_usd: centsToUsd(t.neto_cents),
    },
  };
};

export const ordersReport = report({
  path: '/admin/reports/orders',
  summary: 'Detailed orders report: one row per order, any state',
  file: 'reporte_ordenes',
  query: OrdersQuery,
  rules: rules(rangeRules(LAST_30_DAYS), orderedPairRule('rating_min', 'rating_max')),
  response: z.object({ items: z.array(OrderItemSchema), meta: PageMetaSchema, totals: OrdersTotals }),
  columns: [
    { header: 'Fecha creación', type: 'datetime', value: (i: OrderItem) => i.created_at },
    { header: 'Pedido', type: 'integer', value: (i) => i.id },
    { header: 'Estado', type: 'text', value: (i) => i.status_label },
    { header: 'Ciudad', type: 'text', value: (i) => i.city_name },
    { header: 'Cliente', type: 'text', value: (i) => i.client_name },
    { header: 'Conductor', type: 'text', value: (i) => i.driver_name },
    { header: 'Placa', type: 'text', value: (i) => i.plate },
    { header: 'Dirección', type: 'text', value: (i) => i.address },
    { header: 'Tipo de agua', type: 'text', value: (i) => i.water_type },
    { header: 'Litros solicitados', type: 'integer', value: (i) => i.liters_requested },
    { header: 'Litros entregados', type: 'integer', value: (i) => i.liters_delivered },
    { header: 'Dif. litros', type: 'integer', value: (i) => i.liters_diff },
    { header: 'Precio base (USD)', type: 'number', value: (i) => i.base_price_usd },
    { header: 'Precio final (USD)', type: 'number', value: (i) => i.final_price_usd },
    { header: 'Método de pago', type: 'text', value: (i) => i.payment_method_label },
    { header: 'Estado de pago', type: 'text', value: (i) => PAYMENT_STATUS_LABELS[i.payment_status] },
    { header: 'Comisión (USD)', type: 'number', value: (i) => i.commission_usd },
    { header: 'Fondo solidario (USD)', type: 'number', value: (i) => i.solidary_fund_usd },
    { header: 'Neto conductor (USD)', type: 'number', value: (i) => i.driver_net_usd },
    { header: 'Origen', type: 'text', value: (i) => ORIGIN_LABELS[i.origin] },
    { header: 'Contraoferta', type: 'boolean', value: (i) => i.has_counter_offer },
    { header: 'Tiempo aceptación (min)', type: 'number', value: (i) => i.acceptance_minutes },
    { header: 'Tiempo entrega (min)', type: 'number', value: (i) => i.delivery_minutes },
    { header: 'Calificación', type: 'integer', value: (i) => i.rating },
    { header: 'Incidencias', type: 'integer', value: (i) => i.incidents },
  ],
  list: async (rc, q) => {
    const s = sorted(rc, q);
    const [rows, { n, sums }] = await Promise.all([pageOf<OrderReportRow>(rc.db, s, q.limit, q.page), totals(rc, q)]);
    return { items: rows.map(toItem), meta: pageMeta(n, q.limit, q.page), totals: sums };
  },
  items: async function* (rc, q) {
    for await (const r of batchesOf<OrderReportRow>(rc.db, sorted(rc, q))) yield toItem(r);
  },
});
