import { sql, type RawBuilder } from 'kysely';
import { z } from 'zod';
import { centsToUsd } from '../../../domain/money.js';
import { cancellationReasons } from '../../../domain/order/cancellationReasons.js';
import type { OrderStatus } from '../../../domain/order/events.js';
import { UNDELIVERED_END } from '../../../domain/order/rules.js';
import { CANCELLED_BY } from './labels.js';
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
import { allOf, batchesOf, inScope, pageMeta, pageOf, type SortedSource } from './sortedRows.js';

/** Cancellations: cancelled and expired orders, by the moment they ended. */

const SORT_KEYS = [
  'id',
  'date',
  'final_status',
  'client_name',
  'driver_name',
  'liters',
  'unrealized_usd',
  'minutes_to_cancel',
] as const;
type SortKey = (typeof SORT_KEYS)[number];

const ROLE_OF = { cliente: 'CLIENT', conductor: 'DRIVER', admin: 'ADMIN', sistema: 'SYSTEM' } as const;

const CancellationsQuery = z.object({
  city_id: cityIdParam.optional(),
  cancelled_role: z.enum(['cliente', 'conductor', 'admin', 'sistema']).optional(),
  status_at_cancel: z.enum(['BROADCASTING', 'WAITING_FOR_PAYMENT', 'CONFIRMED', 'IN_PROGRESS']).optional(),
  driver_id: idParam.optional(),
  client_id: idParam.optional(),
  with_refund: boolParam.optional(),
  ...dateFiltersWithin(LAST_30_DAYS),
  sort: sortParam(SORT_KEYS),
  direction,
  limit: limitParam(100, 25),
  page,
});
type CancellationsQuery = z.infer<typeof CancellationsQuery>;

const SORT: Record<SortKey, RawBuilder<unknown>> = {
  id: sql`r.id`,
  date: sql`r.ended_at`,
  final_status: sql`r.status`,
  client_name: sql`coalesce(r.client_name, '')`,
  driver_name: sql`coalesce(r.driver_name, '')`,
  liters: sql`r.liters_requested`,
  unrealized_usd: sql`r.client_pays_cents`,
  minutes_to_cancel: sql`coalesce(r.minutes_to_outcome, -1)`,
};

/** Money goes back to the client: a captured online payment owed back, or redeemed credit returned. */
const REFUNDED = sql`(o.refund_due_cents > 0 OR o.promo_credit_cents > 0)`;

interface Row {
  id: number;
  ended_at: Date;
  status: OrderStatus;
  cancelled_by_role: keyof typeof CANCELLED_BY;
  status_at_cancel: string;
  cancel_reason_code: string | null;
  cancel_reason: string | null;
  city_id: number | null;
  city_name: string | null;
  client_id: number;
  client_name: string | null;
  driver_id: number | null;
  driver_name: string | null;
  liters_requested: number;
  client_pays_cents: number;
  minutes_to_outcome: number;
  charged_before: boolean;
  refunded: boolean;
  recovered: boolean;
}

const source = (rc: ReportContext, q: CancellationsQuery, named = true): RawBuilder<unknown> => {
  const w = resolveWindow(q, rc.today, rc.tz, LAST_30_DAYS);
  const where: RawBuilder<unknown>[] = [
    sql`o.ended_at >= ${w.startAt}`,
    sql`o.ended_at < ${w.endAt}`,
    ...inScope(rc.scope, sql`o.city_id`),
  ];
  if (q.city_id !== undefined) where.push(sql`o.city_id = ${q.city_id}`);
  if (q.cancelled_role) where.push(sql`o.cancelled_by_role = ${ROLE_OF[q.cancelled_role]}`);
  if (q.status_at_cancel) where.push(sql`o.status_at_cancel = ${q.status_at_cancel}`);
  if (q.driver_id !== undefined) where.push(sql`o.driver_id = ${q.driver_id}`);
  if (q.client_id !== undefined) where.push(sql`o.client_id = ${q.client_id}`);
  if (q.with_refund !== undefined) where.push(q.with_refund ? REFUNDED : sql`NOT ${REFUNDED}`);
  return sql`SELECT ${REFUNDED} AS refunded, ${ordersFrom(named)} WHERE ${allOf(where)}`;
};

const sorted = (rc: ReportContext, q: CancellationsQuery): SortedSource => ({
  source: source(rc, q),
  key: SORT[q.sort ?? 'date'],
  dir: q.direction ?? 'desc',
  pickByKey: true,
});

const REASON_LABELS = new Map(
  Object.values(cancellationReasons).flatMap((rs) => rs.map((r) => [r.code, r.label] as const)),
);
export const cancellationReasonLabel = (code: string | null): string | null =>
  code === null ? null : (REASON_LABELS.get(code) ?? code);
export const CANCELLATION_REASON_CODES = [...REASON_LABELS.keys()] as [string, ...string[]];

const EXPIRY_REASON = 'Tiempo de espera agotado';

const toItem = (r: Row): z.infer<typeof ItemSchema> => ({
  id: r.id,
  date: r.ended_at.toISOString(),
  final_status: r.status,
  cancelled_by: CANCELLED_BY[r.cancelled_by_role],
  status_at_cancel: r.status_at_cancel,
  reason: r.status === 'EXPIRED' ? EXPIRY_REASON : (r.cancel_reason ?? cancellationReasonLabel(r.cancel_reason_code)),
  city_id: r.city_id,
  city_name: r.city_name,
  client_id: r.client_id,
  client_name: r.client_name,
  driver_id: r.driver_id,
  driver_name: r.driver_name,
  liters: r.liters_requested,
  unrealized_usd: centsToUsd(r.client_pays_cents),
  minutes_to_cancel: r.minutes_to_outcome,
  charged_before: r.charged_before,
  refunded: r.refunded,
  recovered: r.recovered,
});
type Item = ReturnType<typeof toItem>;

const ItemSchema = z.object({
  id: z.number().int(),
  date: z.string(),
  final_status: z.enum(UNDELIVERED_END),
  cancelled_by: z.enum(['cliente', 'conductor', 'admin', 'sistema']),
  status_at_cancel: z.string(),
  reason: z.string().nullable(),
  city_id: z.number().int().nullable(),
  city_name: z.string().nullable(),
  client_id: z.number().int(),
  client_name: z.string().nullable(),
  driver_id: z.number().int().nullable(),
  driver_name: z.string().nullable(),
  liters: z.number().int(),
  unrealized_usd: z.number(),
  minutes_to_cancel: z.number(),
  charged_before: z.boolean(),
  refunded: z.boolean(),
  recovered: z.boolean(),
});

const Totals = z.object({
  cancelled_by_client: z.number().int(),
  cancelled_by_driver: z.number().int(),
  cancelled_by_admin: z.number().int(),
  expired: z.number().int(),
  unrealized_usd: z.number(),
  /** Recovered ÷ rows × 100 (one decimal); null without rows. */
  recovery_rate: z.number().nullable(),
});

const totals = async (
  rc: ReportContext,
  src: RawBuilder<unknown>,
): Promise<{ n: number; sums: z.infer<typeof Totals> }> => {
  const { rows } = await sql<Record<string, number>>`SELECT
      count(*)::int AS n,
      count(*) FILTER (WHERE r.cancelled_by_role = 'CLIENT')::int AS by_client,
      count(*) FILTER (WHERE r.cancelled_by_role = 'DRIVER')::int AS by_driver,
      count(*) FILTER (WHERE r.cancelled_by_role = 'ADMIN')::int AS by_admin,
      count(*) FILTER (WHERE r.status = 'EXPIRED')::int AS expired,
      count(*) FILTER (WHERE r.recovered)::int AS recovered,
      coalesce(sum(r.client_pays_cents), 0)::float8 AS unrealized_cents
    FROM (${src}) r`.execute(rc.db);
  const t = rows[0];
  return {
    n: t.n,
    sums: {
      cancelled_by_client: t.by_client,
      cancelled_by_driver: t.by_driver,
      cancelled_by_admin: t.by_admin,
      expired: t.expired,
      unrealized_usd: centsToUsd(t.unrealized_cents),
      recovery_rate: t.n === 0 ? null : Math.round((t.recovered * 1000) / t.n) / 10,
    },
  };
};

export const cancellationsReport = report({
  path: '/admin/reports/orders/cancellations',
  summary: 'Cancellations report: cancelled and expired orders',
  file: 'reporte_cancelaciones',
  query: CancellationsQuery,
  rules: rangeRules(LAST_30_DAYS),
  response: z.object({ items: z.array(ItemSchema), meta: PageMetaSchema, totals: Totals }),
  columns: [
    { header: 'Fecha', type: 'datetime', value: (i: Item) => i.date },
    { header: 'Pedido', type: 'integer', value: (i) => i.id },
    { header: 'Estado final', type: 'text', value: (i) => i.final_status },
    { header: 'Canceló', type: 'text', value: (i) => i.cancelled_by },
    { header: 'Estado al cancelar', type: 'text', value: (i) => i.status_at_cancel },
    { header: 'Motivo', type: 'text', value: (i) => i.reason },
    { header: 'Ciudad', type: 'text', value: (i) => i.city_name },
    { header: 'Cliente', type: 'text', value: (i) => i.client_name },
    { header: 'Conductor', type: 'text', value: (i) => i.driver_name },
    { header: 'Litros', type: 'integer', value: (i) => i.liters },
    { header: 'Monto no concretado (USD)', type: 'number', value: (i) => i.unrealized_usd },
    { header: 'Tiempo hasta cancelar (min)', type: 'number', value: (i) => i.minutes_to_cancel },
    { header: 'Cobro previo', type: 'boolean', value: (i) => i.charged_before },
    { header: 'Reembolso', type: 'boolean', value: (i) => i.refunded },
    { header: 'Recuperado', type: 'boolean', value: (i) => i.recovered },
  ],
  list: async (rc, q) => {
    const s = sorted(rc, q);
    const [rows, { n, sums }] = await Promise.all([
      pageOf<Row>(rc.db, s, q.limit, q.page),
      totals(rc, source(rc, q, false)),
    ]);
    return { items: rows.map(toItem), meta: pageMeta(n, q.limit, q.page), totals: sums };
  },
  items: async function* (rc, q) {
    for await (const r of batchesOf<Row>(rc.db, sorted(rc, q))) yield toItem(r);
  },
});
