import { sql, type Generated, type Kysely, type Migration, type Selectable } from 'kysely';
import { boundingBox, distanceKm, type LatLng } from '../../domain/geo.js';
import type { Database, Db } from '../../infra/db/database.js';
import {
  currentStatus,
  STATUS_REPORTS,
  type CurrentStatus,
  type RecentReport,
  type ReportColor,
} from './stationStatus.js';
import { newestFirst } from '../../infra/db/keyset.js';

/**
 * The station directory (state-stored, docs/architecture.md): stations that admins maintain, the traffic-light
 * reports drivers send and the comment walls. Writes live in commands/stations; this file holds the tables
 * and the reads.
 */
declare module '../../infra/db/database.js' {
  interface Database {
    stations: {
      id: Generated<number>;
      name: string;
      /** nameKey(name): what the duplicate check compares. */
      name_key: string;
      address: string;
      description: string | null;
      landmark: string | null;
      latitude: number;
      longitude: number;
      city: string;
      station_type: 'WATER' | 'FUEL';
      is_active: boolean;
      is_verified: boolean;
      opening_time: string | null;
      closing_time: string | null;
      last_report_at: Date | null;
      last_report_color: ReportColor | null;
      created_at: Date;
      updated_at: Date;
      deleted_at: Date | null;
    };
    station_reports: {
      id: Generated<number>;
      station_id: number;
      driver_id: number;
      reporter_user_id: number;
      color: ReportColor;
      wait_minutes: number | null;
      comment: string | null;
      driver_lat: number;
      driver_lng: number;
      created_at: Date;
    };
    station_comments: {
      id: Generated<number>;
      station_id: number;
      author_user_id: number;
      author_role: 'CLIENT' | 'DRIVER';
      content: string;
      created_at: Date;
      /** Moderated or withdrawn comments stay for the record, out of every list. */
      deleted_at: Date | null;
      deleted_by: string | null;
    };
    station_import_jobs: {
      id: Generated<number>;
      admin_id: number;
      status: 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED';
      total_rows: number;
      content: string | null;
      report: unknown;
      error: string | null;
      created_at: Date;
      updated_at: Date;
    };
  }
}

export const stationMigrations: Record<string, Migration> = {
  '0900_stations': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE stations (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name text NOT NULL,
        name_key text NOT NULL,
        address text NOT NULL,
        description text,
        landmark text,
        latitude double precision NOT NULL,
        longitude double precision NOT NULL,
        city text NOT NULL,
        station_type text NOT NULL,
        is_active boolean NOT NULL DEFAULT true,
        is_verified boolean NOT NULL DEFAULT true,
        opening_time text,
        closing_time text,
        last_report_at timestamptz,
        last_report_color text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        deleted_at timestamptz
      )`.execute(db);
      await sql`CREATE INDEX stations_position ON stations (latitude, longitude) WHERE deleted_at IS NULL`.execute(db);
      await sql`CREATE INDEX stations_name_key ON stations (name_key) WHERE deleted_at IS NULL`.execute(db);
      await sql`CREATE INDEX stations_newest ON stations (created_at DESC, id DESC) WHERE deleted_at IS NULL`.execute(
        db,
      );
      await sql`CREATE TABLE station_reports (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        station_id bigint NOT NULL,
        driver_id bigint NOT NULL,
        reporter_user_id bigint NOT NULL,
        color text NOT NULL,
        wait_minutes integer,
        comment text,
        driver_lat double precision NOT NULL,
        driver_lng double precision NOT NULL,
        created_at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX station_reports_station ON station_reports (station_id, created_at DESC, id DESC)`.execute(
        db,
      );
      await sql`CREATE INDEX station_reports_driver
        ON station_reports (driver_id, station_id, created_at DESC)`.execute(db);
      await sql`CREATE TABLE station_comments (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        station_id bigint NOT NULL,
        author_user_id bigint NOT NULL,
        author_role text NOT NULL,
        content text NOT NULL,
        created_at timestamptz NOT NULL,
        deleted_at timestamptz,
        deleted_by text
      )`.execute(db);
      await sql`CREATE INDEX station_comments_wall ON station_comments (station_id, created_at DESC, id DESC)
        WHERE deleted_at IS NULL`.execute(db);
      await sql`CREATE TABLE station_import_jobs (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        admin_id bigint NOT NULL,
        status text NOT NULL,
        total_rows integer NOT NULL,
        content text,
        report jsonb,
        error text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX station_import_jobs_pending ON station_import_jobs (id)
        WHERE status IN ('PENDING', 'PROCESSING')`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE station_import_jobs, station_comments, station_reports, stations`.execute(db);
    },
  },
};

/** A station as the routes read it: everything but the duplicate-check key and the deletion mark. */
export type StationRow = Omit<Selectable<Database['stations']>, 'name_key' | 'deleted_at'>;

const stationColumns = [
  'id',
  'name',
  'address',
  'description',
  'landmark',
  'latitude',
  'longitude',
  'city',
  'station_type',
  'is_active',
  'is_verified',
  'opening_time',
  'closing_time',
  'last_report_at',
  'last_report_color',
  'created_at',
  'updated_at',
] as const;

/** A station that is not deleted (active or not): what admins see. */
export const findStation = (db: Db, id: number): Promise<StationRow | undefined> =>
  db
    .selectFrom('stations')
    .select(stationColumns)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();

/** A station drivers and clients may see: not deleted and active. */
export const findPublicStation = async (db: Db, id: number): Promise<StationRow | undefined> => {
  const s = await findStation(db, id);
  return s?.is_active ? s : undefined;
};

export interface StatusWindow {
  now: Date;
  windowMinutes: number;
}

/** Each station's current_status, from its reports of the status window (one query for all of them). */
export const statusesOf = async (
  db: Db,
  stations: StationRow[],
  w: StatusWindow,
): Promise<Map<number, CurrentStatus | null>> => {
  const out = new Map<number, CurrentStatus | null>();
  const reported = stations.filter((s) => s.last_report_at);
  const recent = new Map<number, RecentReport[]>();
  if (reported.length) {
    const since = new Date(w.now.getTime() - w.windowMinutes * 60_000);
    const rows = await db
      .selectFrom('station_reports')
      .select(['station_id', 'color', 'wait_minutes', 'created_at'])
      .where(
        'station_id',
        'in',
        reported.map((s) => s.id),
      )
      .where('created_at', '>', since)
      .where('created_at', '<=', w.now)
      .orderBy('station_id')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    for (const r of rows) {
      const list = recent.get(r.station_id) ?? [];
      if (list.length < STATUS_REPORTS)
        list.push({ color: r.color, waitMinutes: r.wait_minutes, createdAt: new Date(r.created_at) });
      recent.set(r.station_id, list);
    }
  }
  for (const s of stations) {
    const last =
      s.last_report_at && s.last_report_color ? { color: s.last_report_color, at: new Date(s.last_report_at) } : null;
    out.set(s.id, currentStatus(recent.get(s.id) ?? [], last, w.now));
  }
  return out;
};

/** The most stations one nearby answer lists (nearest first). */
export const NEARBY_MAX = 100;

export const nearbyStations = async (
  db: Db,
  q: { centre: LatLng; radiusKm: number; type?: 'WATER' | 'FUEL' },
): Promise<{ station: StationRow; distanceKm: number }[]> => {
  const box = boundingBox(q.centre, q.radiusKm);
  let query = db
    .selectFrom('stations')
    .select(stationColumns)
    .where('deleted_at', 'is', null)
    .where('is_active', '=', true)
    .where('latitude', '>=', box.minLatitude)
    .where('latitude', '<=', box.maxLatitude)
    .where('longitude', '>=', box.minLongitude)
    .where('longitude', '<=', box.maxLongitude);
  if (q.type) query = query.where('station_type', '=', q.type);
  const rows = await query.execute();
  return rows
    .map((station) => ({ station, distanceKm: distanceKm(q.centre, station) }))
    .filter((r) => r.distanceKm <= q.radiusKm)
    .sort((a, b) => a.distanceKm - b.distanceKm || a.station.id - b.station.id)
    .slice(0, NEARBY_MAX);
};

export interface ReportRow {
  id: number;
  station_id: number;
  driver_id: number;
  color: ReportColor;
  wait_minutes: number | null;
  comment: string | null;
  driver_lat: number;
  driver_lng: number;
  created_at: Date;
  reporter_name: string | null;
}

const reportsQuery = (db: Db) =>
  db
    .selectFrom('station_reports as r')
    .leftJoin('users as u', 'u.id', 'r.reporter_user_id')
    .select([
      'r.id',
      'r.station_id',
      'r.driver_id',
      'r.color',
      'r.wait_minutes',
      'r.comment',
      'r.driver_lat',
      'r.driver_lng',
      'r.created_at',
      'u.name as reporter_name',
    ]);

/** Newest first; `after` is the last item of the previous page. */
export const stationReports = async (
  db: Db,
  q: {
    stationId: number;
    limit: number;
    after?: { at: Date; id: number };
    color?: ReportColor;
    from?: Date;
    to?: Date;
  },
): Promise<ReportRow[]> => {
  let query = reportsQuery(db).where('r.station_id', '=', q.stationId);
  if (q.color) query = query.where('r.color', '=', q.color);
  if (q.from) query = query.where('r.created_at', '>=', q.from);
  if (q.to) query = query.where('r.created_at', '<', q.to);
  return newestFirst(query, ['r.created_at', 'r.id'], q.after && [q.after.at, q.after.id])
    .limit(q.limit)
    .execute();
};

export const findReport = (db: Db, id: number): Promise<ReportRow | undefined> =>
  reportsQuery(db).where('r.id', '=', id).executeTakeFirst();

export interface ReportSummary {
  total: number;
  waitSum: number;
  waitCount: number;
  byColor: Record<ReportColor, number>;
}

export const reportSummary = async (db: Db, stationId: number, since: Date): Promise<ReportSummary> => {
  const rows = await db
    .selectFrom('station_reports')
    .select((eb) => [
      'color',
      eb.fn.countAll<number>().as('n'),
      eb.fn.sum<number>('wait_minutes').as('wait_sum'),
      eb.fn.count<number>('wait_minutes').as('wait_n'),
    ])
    .where('station_id', '=', stationId)
    .where('created_at', '>=', since)
    .groupBy('color')
    .execute();
  const out: ReportSummary = {
    total: 0,
    waitSum: 0,
    waitCount: 0,
    byColor: { GREEN: 0, YELLOW: 0, RED: 0, CLOSED: 0 },
  };
  for (const r of rows) {
    const n = Number(r.n);
    out.total += n;
    out.byColor[r.color] = n;
    out.waitSum += Number(r.wait_sum ?? 0);
    out.waitCount += Number(r.wait_n);
  }
  return out;
};

export interface CommentRow {
  id: number;
  station_id: number;
  author_user_id: number;
  author_role: 'CLIENT' | 'DRIVER';
  author_name: string | null;
  content: string;
  created_at: Date;
}

const commentsQuery = (db: Db) =>
  db
    .selectFrom('station_comments as c')
    .leftJoin('users as u', 'u.id', 'c.author_user_id')
    .select([
      'c.id',
      'c.station_id',
      'c.author_user_id',
      'c.author_role',
      'u.name as author_name',
      'c.content',
      'c.created_at',
    ])
    .where('c.deleted_at', 'is', null);

export const stationComments = async (
  db: Db,
  q: { stationId: number; limit: number; after?: { at: Date; id: number } },
): Promise<CommentRow[]> => {
  const query = commentsQuery(db).where('c.station_id', '=', q.stationId);
  return newestFirst(query, ['c.created_at', 'c.id'], q.after && [q.after.at, q.after.id])
    .limit(q.limit)
    .execute();
};

export const findComment = (db: Db, id: number): Promise<CommentRow | undefined> =>
  commentsQuery(db).where('c.id', '=', id).executeTakeFirst();

export interface AdminListItemRow {
  id: number;
  name: string;
  address: string;
  station_type: 'WATER' | 'FUEL';
  is_active: boolean;
  last_report_at: Date | null;
  created_at: Date;
}

/** `%`, `_` and `\` in a search are literal characters, not patterns. */
const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export const adminStationList = async (
  db: Db,
  q: { limit: number; after?: { at: Date; id: number }; type?: 'WATER' | 'FUEL'; active?: boolean; search?: string },
): Promise<AdminListItemRow[]> => {
  let query = db
    .selectFrom('stations')
    .select(['id', 'name', 'address', 'station_type', 'is_active', 'last_report_at', 'created_at'])
    .where('deleted_at', 'is', null);
  if (q.type) query = query.where('station_type', '=', q.type);
  if (q.active !== undefined) query = query.where('is_active', '=', q.active);
  if (q.search) {
    const p = likePattern(q.search);
    query = query.where((eb) => eb.or([eb('name', 'ilike', p), eb('address', 'ilike', p)]));
  }
  return newestFirst(query, ['created_at', 'id'], q.after && [q.after.at, q.after.id])
    .limit(q.limit)
    .execute();
};

export interface ImportJobRow {
  id: number;
  admin_id: number;
  status: 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED';
  total_rows: number;
  report: unknown;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

export const findImportJob = (db: Db, id: number): Promise<ImportJobRow | undefined> =>
  db
    .selectFrom('station_import_jobs')
    .select(['id', 'admin_id', 'status', 'total_rows', 'report', 'error', 'created_at', 'updated_at'])
    .where('id', '=', id)
    .executeTakeFirst();
