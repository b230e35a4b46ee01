import { iso } from '../../../domain/time.js';
import { z } from 'zod';
import type {
  AdminListItemRow,
  CommentRow,
  ImportJobRow,
  ReportRow,
  ReportSummary,
  StationRow,
} from '../../../stores/stations/stationStore.js';
import type { ReportColor } from '../../../stores/stations/stationStatus.js';

/** The back office speaks Spanish values (docs/domain-rules.md, stations). */
export const TIPOS = ['AGUA', 'GASOLINA'] as const;
export const ESTADOS = ['ACTIVA', 'INACTIVA'] as const;
export const COLORES = ['verde', 'amarillo', 'rojo', 'cerrada'] as const;
export type Tipo = (typeof TIPOS)[number];
export type Color = (typeof COLORES)[number];

export const tipoOf = (t: 'WATER' | 'FUEL'): Tipo => (t === 'WATER' ? 'AGUA' : 'GASOLINA');
export const stationTypeOf = (t: Tipo): 'WATER' | 'FUEL' => (t === 'AGUA' ? 'WATER' : 'FUEL');
const estadoOf = (active: boolean) => (active ? 'ACTIVA' : 'INACTIVA');

const colorNames: Record<ReportColor, Color> = { GREEN: 'verde', YELLOW: 'amarillo', RED: 'rojo', CLOSED: 'cerrada' };
export const colorOf = (c: ReportColor): Color => colorNames[c];
export const reportColorOf = (c: Color): ReportColor =>
  (Object.keys(colorNames) as ReportColor[]).find((k) => colorNames[k] === c)!;

export const AdminStationSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    address: z.string(),
    description: z.string().nullable(),
    landmark: z.string().nullable(),
    latitude: z.number(),
    longitude: z.number(),
    city: z.string(),
    tipo: z.enum(TIPOS),
    estado: z.enum(ESTADOS),
    is_verified: z.boolean(),
    opening_time: z.string().nullable(),
    closing_time: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('AdminStation');

export const adminStationView = (s: StationRow): z.infer<typeof AdminStationSchema> => ({
  id: s.id,
  name: s.name,
  address: s.address,
  description: s.description,
  landmark: s.landmark,
  latitude: s.latitude,
  longitude: s.longitude,
  city: s.city,
  tipo: tipoOf(s.station_type),
  estado: estadoOf(s.is_active),
  is_verified: s.is_verified,
  opening_time: s.opening_time,
  closing_time: s.closing_time,
  created_at: iso(s.created_at),
  updated_at: iso(s.updated_at),
});

export const AdminStationListItemSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    address: z.string(),
    tipo: z.enum(TIPOS),
    estado: z.enum(ESTADOS),
    last_report_at: z.string().nullable(),
  })
  .openapi('AdminStationListItem');

export const adminListItemView = (s: AdminListItemRow): z.infer<typeof AdminStationListItemSchema> => ({
  id: s.id,
  name: s.name,
  address: s.address,
  tipo: tipoOf(s.station_type),
  estado: estadoOf(s.is_active),
  last_report_at: s.last_report_at ? iso(s.last_report_at) : null,
});

export const AdminReportSchema = z
  .object({
    id: z.number().int(),
    color: z.enum(COLORES),
    wait_minutes: z.number().int().nullable(),
    comment: z.string().nullable(),
    reporter: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('AdminStationReport');

export const adminReportView = (r: ReportRow): z.infer<typeof AdminReportSchema> => ({
  id: r.id,
  color: colorOf(r.color),
  wait_minutes: r.wait_minutes,
  comment: r.comment,
  reporter: r.reporter_name,
  created_at: iso(r.created_at),
});

export const AdminCommentSchema = z
  .object({
    id: z.number().int(),
    author: z.object({ id: z.number().int(), name: z.string().nullable(), role: z.string() }),
    content: z.string(),
    created_at: z.string(),
  })
  .openapi('AdminStationComment');

export const adminCommentView = (c: CommentRow): z.infer<typeof AdminCommentSchema> => ({
  id: c.id,
  author: { id: c.author_user_id, name: c.author_name, role: c.author_role },
  content: c.content,
  created_at: iso(c.created_at),
});

export const SummarySchema = z.object({
  total_reports_30d: z.number().int(),
  avg_wait_minutes: z.number().nullable(),
  color_breakdown: z.object({
    verde: z.number().int(),
    amarillo: z.number().int(),
    rojo: z.number().int(),
    cerrada: z.number().int(),
  }),
});

/** avg_wait_minutes: the mean of the reported waits (reports without one left out), one decimal. */
export const summaryView = (s: ReportSummary): z.infer<typeof SummarySchema> => ({
  total_reports_30d: s.total,
  avg_wait_minutes: s.waitCount ? Math.round((s.waitSum / s.waitCount) * 10) / 10 : null,
  color_breakdown: {
    verde: s.byColor.GREEN,
    amarillo: s.byColor.YELLOW,
    rojo: s.byColor.RED,
    cerrada: s.byColor.CLOSED,
  },
});

export const ImportReportSchema = z.object({
  processed: z.number().int(),
  created: z.number().int(),
  updated: z.number().int(),
  skipped: z.number().int(),
  skipped_rows: z.array(z.object({ line: z.number().int(), reason: z.string() })),
});

export const ImportJobSchema = z
  .object({
    job_id: z.number().int(),
    status: z.enum(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED']),
    total_rows: z.number().int(),
    report: ImportReportSchema.nullable(),
    error: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('StationImportJob');

export const importJobView = (j: ImportJobRow): z.infer<typeof ImportJobSchema> => ({
  job_id: j.id,
  status: j.status,
  total_rows: j.total_rows,
  report: (j.report ?? null) as z.infer<typeof ImportReportSchema> | null,
  error: j.error,
  created_at: iso(j.created_at),
  updated_at: iso(j.updated_at),
});
