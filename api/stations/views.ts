import { iso } from '../../domain/time.js';
import { z } from 'zod';
import { orNull } from '../openapi.js';
import type { CommentRow, ReportRow, StationRow } from '../../stores/stations/stationStore.js';
import { REPORT_COLORS, type CurrentStatus } from '../../stores/stations/stationStatus.js';

export const CurrentStatusSchema = z
  .object({
    current_color: z.enum(REPORT_COLORS),
    confidence: z.number().min(0).max(1),
    report_count: z.number().int(),
    avg_wait_minutes: z.number().int().nullable(),
    last_report_at: z.string(),
  })
  .openapi('StationCurrentStatus');

export const StationSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    address: z.string(),
    latitude: z.number(),
    longitude: z.number(),
    city: z.string(),
    station_type: z.enum(['WATER', 'FUEL']),
    is_verified: z.boolean(),
    is_active: z.boolean(),
    current_status: orNull(CurrentStatusSchema),
    distance_km: z
      .number()
      .optional()
      .describe('Nearby lists only: straight-line distance from lat/lng, in km (3 decimals).'),
  })
  .openapi('Station');

/** A station; nearby lists add distance_km. */
export const stationView = (
  s: StationRow,
  status: CurrentStatus | null,
  distanceKm?: number,
): z.infer<typeof StationSchema> => ({
  id: s.id,
  name: s.name,
  address: s.address,
  latitude: s.latitude,
  longitude: s.longitude,
  city: s.city,
  station_type: s.station_type,
  is_verified: s.is_verified,
  is_active: s.is_active,
  current_status: status,
  ...(distanceKm !== undefined ? { distance_km: Math.round(distanceKm * 1000) / 1000 } : {}),
});

export const ReportSchema = z
  .object({
    id: z.number().int(),
    station_id: z.number().int(),
    driver_id: z.number().int(),
    color: z.enum(REPORT_COLORS),
    wait_minutes: z.number().int().nullable(),
    comment: z.string().nullable(),
    driver_lat: z.number(),
    driver_lng: z.number(),
    created_at: z.string(),
  })
  .openapi('StationReport');

/** A station report. */
export const reportView = (r: ReportRow): z.infer<typeof ReportSchema> => ({
  id: r.id,
  station_id: r.station_id,
  driver_id: r.driver_id,
  color: r.color,
  wait_minutes: r.wait_minutes,
  comment: r.comment,
  driver_lat: r.driver_lat,
  driver_lng: r.driver_lng,
  created_at: iso(r.created_at),
});

export const DetailReportSchema = z
  .object({
    id: z.number().int(),
    color: z.enum(REPORT_COLORS),
    waitMinutes: z.number().int().nullable(),
    comment: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi('StationDetailReport');

/** The public detail: the contract names these fields in camelCase. */
export const detailReportView = (r: ReportRow): z.infer<typeof DetailReportSchema> => ({
  id: r.id,
  color: r.color,
  waitMinutes: r.wait_minutes,
  comment: r.comment,
  createdAt: iso(r.created_at),
});

export const CommentSchema = z
  .object({
    id: z.number().int(),
    station_id: z.number().int(),
    author: z.object({ id: z.number().int(), name: z.string().nullable(), role: z.string() }),
    content: z.string(),
    created_at: z.string(),
  })
  .openapi('StationComment');

/** A comment; author.id is the app user's id. */
export const commentView = (c: CommentRow): z.infer<typeof CommentSchema> => ({
  id: c.id,
  station_id: c.station_id,
  author: { id: c.author_user_id, name: c.author_name, role: c.author_role },
  content: c.content,
  created_at: iso(c.created_at),
});
