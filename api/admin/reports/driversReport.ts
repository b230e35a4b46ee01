import { sql, type RawBuilder } from 'kysely';
import { z } from 'zod';
import { KYC_STATES, type KycState } from '../../../domain/driver/events.js';
import { centsToUsd, usdToCents } from '../../../domain/money.js';
import { AVAILABILITY } from './labels.js';
import { PageMetaSchema } from './ordersReport.js';
import { report, type ReportContext } from './report.js';
import { boolParam, direction, limitParam, orderedPair, page, sortParam } from './reportQuery.js';
import { orderedPairRule, rules } from '../../crossFieldRules.js';
import { allOf, batchesOf, inScope, pageMeta, pageOf, type SortedSource } from './sortedRows.js';
import { queryInteger, queryNumber } from '../../schemas.js';

/**
 * Drivers: one row per driver, scoped by the driver's profile city. Figures are the
 * driver's whole history (the report takes no dates); balance and cash debt come from the wallet.
 */

const SORT_KEYS = [
  'name',
  'registered_at',
  'kyc_state',
  'rating',
  'ratings_count',
  'capacity',
  'balance_usd',
  'cash_debt_usd',
  'last_activity',
  'deliveries',
  'liters_delivered',
  'gross_earnings_usd',
  'commission_paid_usd',
  'own_cancellations',
] as const;
type SortKey = (typeof SORT_KEYS)[number];

const rating = queryNumber(0, 5);
const capacity = queryInteger(0, 1_000_000);

const DriversQuery = z.object({
  kyc_state: z.enum(KYC_STATES).optional(),
  availability: z.enum(AVAILABILITY).optional(),
  rating_min: rating.optional(),
  rating_max: rating.optional().openapi({ description: 'Not below rating_min.' }),
  with_cash_debt: boolParam.optional(),
  min_balance: queryNumber(0, 1e9).optional(),
  capacity_min: capacity.optional(),
  capacity_max: capacity.optional().openapi({ description: 'Not below capacity_min.' }),
  sort: sortParam(SORT_KEYS),
  direction,
  limit: limitParam(100, 25),
  page,
});
type DriversQuery = z.infer<typeof DriversQuery>;

const SORT: Record<SortKey, RawBuilder<unknown>> = {
  name: sql`coalesce(r.name, '')`,
  registered_at: sql`r.registered_at`,
  kyc_state: sql`r.kyc_state`,
  rating: sql`coalesce(r.rating, -1)`,
  ratings_count: sql`r.ratings_count`,
  capacity: sql`coalesce(r.capacity_liters, -1)`,
  balance_usd: sql`r.balance_cents`,
  cash_debt_usd: sql`r.cash_debt_cents`,
  last_activity: sql`r.last_activity_at`,
  deliveries: sql`r.deliveries`,
  liters_delivered: sql`r.liters_delivered`,
  gross_earnings_usd: sql`r.gross_earnings_cents`,
  commission_paid_usd: sql`r.commission_paid_cents`,
  own_cancellations: sql`r.own_cancellations`,
};

const AVAILABILITY_OF = sql`CASE WHEN d.status IN ('SUSPENDED', 'BANNED') THEN 'bloqueado' WHEN d.is_online
  THEN 'en_linea' ELSE 'fuera_de_linea' END`;
const RATING = sql`CASE WHEN d.ratings_count = 0 THEN NULL
  ELSE round(d.rating_sum::numeric / d.ratings_count, 2)::float8 END`;
const CASH_DEBT = sql`greatest(0, -d.balance_cents)`;

interface Row {
  id: number;
  name: string | null;
  id_number: string | null;
  phone: string;
  registered_at: Date;
  kyc_state: KycState;
  availability: (typeof AVAILABILITY)[number];
  block_reason: string | null;
  plate: string | null;
  capacity_liters: number | null;
  deliveries: number;
  own_cancellations: number;
  liters_delivered: number;
  gross_earnings_cents: number;
  commission_paid_cents: number;
  solidary_cents: number;
  balance_cents: number;
  cash_debt_cents: number;
  rating: number | null;
  ratings_count: number;
  incidents: number;
  last_activity_at: Date;
}

const source = (rc: ReportContext, q: DriversQuery): RawBuilder<unknown> => {
  orderedPair(q, 'rating_min', 'rating_max');
  orderedPair(q, 'capacity_min', 'capacity_max');
  const where: RawBuilder<unknown>[] = [...inScope(rc.scope, sql`d.city_id`)];
  if (q.kyc_state) where.push(sql`d.kyc_state = ${q.kyc_state}`);
  if (q.availability) where.push(sql`${AVAILABILITY_OF} = ${q.availability}`);
  if (q.rating_min !== undefined) where.push(sql`${RATING} >= ${q.rating_min}`);
  if (q.rating_max !== undefined) where.push(sql`${RATING} <= ${q.rating_max}`);
  if (q.with_cash_debt !== undefined)
    where.push(q.with_cash_debt ? sql`d.balance_cents < 0` : sql`d.balance_cents >= 0`);
  if (q.min_balance !== undefined) where.push(sql`d.balance_cents >= ${usdToCents(q.min_balance)}`);
  if (q.capacity_min !== undefined) where.push(sql`d.capacity_liters >= ${q.capacity_min}`);
  if (q.capacity_max !== undefined) where.push(sql`d.capacity_liters <= ${q.capacity_max}`);
  return sql`SELECT d.driver_id AS id, d.*, ${AVAILABILITY_OF} AS availability, ${RATING} AS rating,
    ${CASH_DEBT} AS cash_debt_cents
    FROM report_drivers d WHERE ${allOf(where)}`;
};

const sorted = (rc: ReportContext, q: DriversQuery): SortedSource => ({
  source: source(rc, q),
  key: SORT[q.sort ?? 'registered_at'],
  dir: q.direction ?? 'desc',
});

const toItem = (r: Row): z.infer<typeof ItemSchema> => ({
  driver_id: r.id,
  name: r.name,
  id_number: r.id_number,
  phone: r.phone,
  registered_at: r.registered_at.toISOString(),
  kyc_state: r.kyc_state,
  availability: r.availability,
  block_reason: r.block_reason,
  plate: r.plate,
  capacity: r.capacity_liters,
  deliveries: r.deliveries,
  unanswered: null,
  acceptance_rate: null,
  own_cancellations: r.own_cancellations,
  liters_delivered: r.liters_delivered,
  gross_earnings_usd: centsToUsd(r.gross_earnings_cents),
  commission_paid_usd: centsToUsd(r.commission_paid_cents),
  solidary_usd: centsToUsd(r.solidary_cents),
  balance_usd: centsToUsd(r.balance_cents),
  cash_debt_usd: centsToUsd(r.cash_debt_cents),
  rating: r.rating,
  ratings_count: r.ratings_count,
  incidents: r.incidents,
  last_activity: r.last_activity_at.toISOString(),
});
type Item = ReturnType<typeof toItem>;

const ItemSchema = z.object({
  driver_id: z.number().int(),
  name: z.string().nullable(),
  id_number: z.string().nullable(),
  phone: z.string(),
  registered_at: z.string(),
  kyc_state: z.enum(KYC_STATES),
  availability: z.enum(AVAILABILITY),
  block_reason: z.string().nullable(),
  plate: z.string().nullable(),
  capacity: z.number().int().nullable(),
  deliveries: z.number().int(),
  unanswered: z.null(),
  acceptance_rate: z.null(),
  own_cancellations: z.number().int(),
  liters_delivered: z.number().int(),
  gross_earnings_usd: z.number(),
  commission_paid_usd: z.number(),
  solidary_usd: z.number(),
  balance_usd: z.number(),
  cash_debt_usd: z.number(),
  rating: z.number().nullable(),
  ratings_count: z.number().int(),
  incidents: z.number().int(),
  last_activity: z.string(),
});

const Totals = z.object({
  conductores: z.number().int(),
  aprobados: z.number().int(),
  bloqueados: z.number().int(),
  litros_entregados: z.number().int(),
  ganancia_bruta_usd: z.number(),
  comision_usd: z.number(),
  deuda_cash_total_usd: z.number(),
});

const totals = async (
  rc: ReportContext,
  src: RawBuilder<unknown>,
): Promise<{ n: number; sums: z.infer<typeof Totals> }> => {
  const { rows } = await sql<Record<string, number>>`SELECT
      count(*)::int AS conductores,
      count(*) FILTER (WHERE r.kyc_state = 'APPROVED')::int AS aprobados,
      count(*) FILTER (WHERE r.availability = 'bloqueado')::int AS bloqueados,
      coalesce(sum(r.liters_delivered), 0)::float8 AS litros,
      coalesce(sum(r.gross_earnings_cents), 0)::float8 AS gross_cents,
      coalesce(sum(r.commission_paid_cents), 0)::float8 AS commission_cents,
      coalesce(sum(r.cash_debt_cents), 0)::float8 AS debt_cents
    FROM (${src}) r`.execute(rc.db);
  const t = rows[0];
  return {
    n: t.conductores,
    sums: {
      conductores: t.conductores,
      aprobados: t.aprobados,
      bloqueados: t.bloqueados,
      litros_entregados: t.litros,
      ganancia_bruta_usd: centsToUsd(t.gross_cents),
      comision_usd: centsToUsd(t.commission_cents),
      deuda_cash_total_usd: centsToUsd(t.debt_cents),
    },
  };
};

export const driversReport = report({
  path: '/admin/reports/drivers',
  summary: 'Drivers report: one row per driver',
  file: 'reporte_cisterneros',
  query: DriversQuery,
  rules: rules(orderedPairRule('rating_min', 'rating_max'), orderedPairRule('capacity_min', 'capacity_max')),
  response: z.object({ items: z.array(ItemSchema), meta: PageMetaSchema, totals: Totals }),
  columns: [
    { header: 'Conductor', type: 'text', value: (i: Item) => i.name },
    { header: 'Cédula', type: 'text', value: (i) => i.id_number },
    { header: 'Teléfono', type: 'text', value: (i) => i.phone },
    { header: 'Fecha registro', type: 'datetime', value: (i) => i.registered_at },
    { header: 'Estado KYC', type: 'text', value: (i) => i.kyc_state },
    { header: 'Disponibilidad', type: 'text', value: (i) => i.availability },
    { header: 'Motivo bloqueo', type: 'text', value: (i) => i.block_reason },
    { header: 'Placa', type: 'text', value: (i) => i.plate },
    { header: 'Capacidad', type: 'integer', value: (i) => i.capacity },
    { header: 'Entregas', type: 'integer', value: (i) => i.deliveries },
    { header: 'No respondidos', type: 'integer', value: (i) => i.unanswered },
    { header: 'Tasa aceptación (%)', type: 'number', value: (i) => i.acceptance_rate },
    { header: 'Cancelaciones', type: 'integer', value: (i) => i.own_cancellations },
    { header: 'Litros entregados', type: 'integer', value: (i) => i.liters_delivered },
    { header: 'Ganancia bruta (USD)', type: 'number', value: (i) => i.gross_earnings_usd },
    { header: 'Comisión pagada (USD)', type: 'number', value: (i) => i.commission_paid_usd },
    { header: 'Aporte solidario (USD)', type: 'number', value: (i) => i.solidary_usd },
    { header: 'Saldo actual (USD)', type: 'number', value: (i) => i.balance_usd },
    { header: 'Deuda cash (USD)', type: 'number', value: (i) => i.cash_debt_usd },
    { header: 'Calificación', type: 'number', value: (i) => i.rating },
    { header: 'N.º calificaciones', type: 'integer', value: (i) => i.ratings_count },
    { header: 'Incidencias', type: 'integer', value: (i) => i.incidents },
    { header: 'Última actividad', type: 'datetime', value: (i) => i.last_activity },
  ],
  list: async (rc, q) => {
    const s = sorted(rc, q);
    const [rows, { n, sums }] = await Promise.all([pageOf<Row>(rc.db, s, q.limit, q.page), totals(rc, s.source)]);
    return { items: rows.map(toItem), meta: pageMeta(n, q.limit, q.page), totals: sums };
  },
  items: async function* (rc, q) {
    for await (const r of batchesOf<Row>(rc.db, sorted(rc, q))) yield toItem(r);
  },
});
