import { sql, type RawBuilder } from 'kysely';
import { z } from 'zod';
import {
  DOCUMENT_LABELS,
  DOCUMENT_TYPES,
  KYC_STATES,
  REQUIRED_DOCUMENT_TYPES,
  type DocumentType,
  type KycState,
} from '../../../domain/driver/events.js';
import { pgZone } from '../../../projections/reports/dailyRollup.js';
import { DOCUMENT_STATUSES } from './labels.js';
import { PageMetaSchema } from './ordersReport.js';
import { report, type ReportContext } from './report.js';
import { boolParam, direction, limitParam, page, sortParam } from './reportQuery.js';
import { allOf, batchesOf, inScope, pageMeta, pageOf, type SortedSource } from './sortedRows.js';

/**
 * Driver documents: one row per driver and tracked document type, recorded or not.
 * Status, traffic light and days remaining depend on today (report time zone), so they are computed at
 * query time from the recorded expiry date.
 */

/** por_vencer: expiry within this many days. */
export const EXPIRING_WITHIN_DAYS = 30;

const SORT_KEYS = [
  'driver_name',
  'id_number',
  'kyc_state',
  'kyc_approved_at',
  'document',
  'status',
  'traffic_light',
  'expires_at',
  'days_remaining',
  'blocks',
] as const;
type SortKey = (typeof SORT_KEYS)[number];

const DocumentsQuery = z.object({
  kyc_state: z.enum(KYC_STATES).optional(),
  document: z.enum(DOCUMENT_TYPES).optional(),
  status: z.enum(DOCUMENT_STATUSES).optional(),
  only_blocked: boolParam.optional(),
  sort: sortParam(SORT_KEYS),
  direction,
  limit: limitParam(200, 50),
  page,
});
type DocumentsQuery = z.infer<typeof DocumentsQuery>;

const SORT: Record<SortKey, RawBuilder<unknown>> = {
  driver_name: sql`coalesce(r.driver_name, '')`,
  // Always null (no national id is recorded): the order falls to the row id.
  id_number: sql`coalesce(r.id_number, '')`,
  kyc_state: sql`r.kyc_state`,
  kyc_approved_at: sql`coalesce(r.kyc_approved_at, '')`,
  document: sql`r.document`,
  status: sql`r.status`,
  traffic_light: sql`r.traffic_light`,
  expires_at: sql`coalesce(r.expires_at, '')`,
  // Missing documents (no days) sort lowest, as nulls do in every report: first by default.
  days_remaining: sql`coalesce(r.days_remaining, -2147483648)`,
  blocks: sql`r.blocks`,
};

interface Row {
  id: number;
  driver_id: number;
  driver_name: string | null;
  id_number: string | null;
  kyc_state: KycState;
  kyc_approved_at: string | null;
  document: DocumentType;
  status: (typeof DOCUMENT_STATUSES)[number];
  traffic_light: 'verde' | 'amarillo' | 'rojo' | 'gris';
  expires_at: string | null;
  days_remaining: number | null;
  blocks: boolean;
}

const source = (rc: ReportContext, q: DocumentsQuery): RawBuilder<unknown> => {
  const types = sql.join(
    DOCUMENT_TYPES.map((t, i) => sql`(${t}::text, ${i}::int, ${REQUIRED_DOCUMENT_TYPES.includes(t)}::boolean)`),
  );
  const today = sql`${rc.today}::date`;
  const inner = sql`SELECT d.driver_id * 10 + t.ord AS id, d.driver_id, d.name AS driver_name, d.id_number, d.kyc_state,
    d.city_id,
      to_char(d.kyc_approved_at AT TIME ZONE ${pgZone(rc.tz)}, 'YYYY-MM-DD') AS kyc_approved_at,
      t.type AS document, t.required, doc.driver_id IS NOT NULL AS recorded, doc.expires_at,
      CASE WHEN doc.expires_at IS NULL THEN NULL ELSE doc.expires_at::date - ${today} END AS days_remaining
    FROM report_drivers d CROSS JOIN (VALUES ${types}) AS t(type, ord, required)
    LEFT JOIN report_driver_documents doc ON doc.driver_id = d.driver_id AND doc.type = t.type`;
  const status = sql`CASE WHEN NOT x.recorded THEN 'faltante' WHEN x.days_remaining IS NULL THEN 'vigente'
    WHEN x.days_remaining < 0 THEN 'vencido' WHEN x.days_remaining <= ${EXPIRING_WITHIN_DAYS} THEN 'por_vencer'
    ELSE 'vigente' END`;
  const classified = sql`SELECT x.*, ${status} AS status FROM (${inner}) x`;
  const where: RawBuilder<unknown>[] = [...inScope(rc.scope, sql`y.city_id`)];
  if (q.kyc_state) where.push(sql`y.kyc_state = ${q.kyc_state}`);
  if (q.document) where.push(sql`y.document = ${q.document}`);
  if (q.status) where.push(sql`y.status = ${q.status}`);
  if (q.only_blocked) where.push(sql`y.blocks`);
  return sql`SELECT * FROM (SELECT y0.*,
        CASE y0.status WHEN 'vigente' THEN 'verde' WHEN 'por_vencer' THEN 'amarillo' WHEN 'vencido' THEN 'rojo'
          ELSE CASE WHEN y0.required THEN 'rojo' ELSE 'gris' END END AS traffic_light,
        (y0.status = 'vencido' OR (y0.status = 'faltante' AND y0.required)) AS blocks
      FROM (${classified}) y0) y WHERE ${allOf(where)}`;
};

const sorted = (rc: ReportContext, q: DocumentsQuery): SortedSource => ({
  source: source(rc, q),
  key: SORT[q.sort ?? 'days_remaining'],
  // Expired or expiring first by default; a chosen sort key defaults to desc like every report.
  dir: q.direction ?? (q.sort ? 'desc' : 'asc'),
});

const toItem = (r: Row): z.infer<typeof ItemSchema> => ({
  driver_id: r.driver_id,
  driver_name: r.driver_name,
  id_number: r.id_number,
  kyc_state: r.kyc_state,
  approved_by: null,
  kyc_approved_at: r.kyc_approved_at,
  document: r.document,
  document_label: DOCUMENT_LABELS[r.document as keyof typeof DOCUMENT_LABELS] ?? r.document,
  status: r.status,
  traffic_light: r.traffic_light,
  expires_at: r.expires_at,
  days_remaining: r.days_remaining,
  blocks: r.blocks,
});
type Item = ReturnType<typeof toItem>;

const ItemSchema = z.object({
  driver_id: z.number().int(),
  driver_name: z.string().nullable(),
  id_number: z.string().nullable(),
  kyc_state: z.enum(KYC_STATES),
  approved_by: z.null(),
  kyc_approved_at: z.string().nullable(),
  document: z.enum(DOCUMENT_TYPES),
  document_label: z.string(),
  status: z.enum(DOCUMENT_STATUSES),
  traffic_light: z.enum(['verde', 'amarillo', 'rojo', 'gris']),
  expires_at: z.string().nullable(),
  days_remaining: z.number().int().nullable(),
  blocks: z.boolean(),
});

const Totals = z.object({
  vigentes: z.number().int(),
  por_vencer: z.number().int(),
  vencidos: z.number().int(),
  faltantes: z.number().int(),
  conductores_bloqueados: z.number().int(),
});

const totals = async (
  rc: ReportContext,
  src: RawBuilder<unknown>,
): Promise<{ n: number; sums: z.infer<typeof Totals> }> => {
  const { rows } = await sql<z.infer<typeof Totals> & { n: number }>`SELECT
      count(*)::int AS n,
      count(*) FILTER (WHERE r.status = 'vigente')::int AS vigentes,
      count(*) FILTER (WHERE r.status = 'por_vencer')::int AS por_vencer,
      count(*) FILTER (WHERE r.status = 'vencido')::int AS vencidos,
      count(*) FILTER (WHERE r.status = 'faltante')::int AS faltantes,
      count(DISTINCT r.driver_id) FILTER (WHERE r.blocks)::int AS conductores_bloqueados
    FROM (${src}) r`.execute(rc.db);
  const { n, ...sums } = rows[0];
  return { n, sums };
};

export const documentsReport = report({
  path: '/admin/reports/drivers/documents',
  summary: 'Driver documents: one row per driver and tracked document',
  file: 'reporte_documentacion',
  query: DocumentsQuery,
  response: z.object({ items: z.array(ItemSchema), meta: PageMetaSchema, totals: Totals }),
  columns: [
    { header: 'Conductor', type: 'text', value: (i: Item) => i.driver_name },
    { header: 'Cédula', type: 'text', value: (i) => i.id_number },
    { header: 'Estado KYC', type: 'text', value: (i) => i.kyc_state },
    { header: 'Aprobado por', type: 'text', value: (i) => i.approved_by },
    { header: 'Fecha aprobación', type: 'date', value: (i) => i.kyc_approved_at },
    { header: 'Documento', type: 'text', value: (i) => i.document_label },
    { header: 'Estado documento', type: 'text', value: (i) => i.status },
    { header: 'Semáforo', type: 'text', value: (i) => i.traffic_light },
    { header: 'Fecha vencimiento', type: 'date', value: (i) => i.expires_at },
    { header: 'Días restantes', type: 'integer', value: (i) => i.days_remaining },
    { header: 'Bloquea', type: 'boolean', value: (i) => i.blocks },
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
