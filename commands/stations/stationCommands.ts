import { sql } from 'kysely';
import type { Actor } from '../../domain/actor.js';
import { forbidden, notFound, tooMany, unprocessable } from '../../domain/errors.js';
import type { Db, Trx } from '../../infra/db/database.js';
import { findComment, findStation, type CommentRow, type StationRow } from '../../stores/stations/stationStore.js';
import type { ReportColor } from '../../stores/stations/stationStatus.js';
import type { RateLimit } from '../identity/rateLimit.js';
import { inVenezuela, isDuplicateOf, nameKey, type StationType } from './stationRules.js';

/**
 * Writes of the station directory (state-stored). Every check that depends on other rows (duplicate name
 * nearby, report cooldown, recent reports before a delete) runs in the writing transaction under a lock, so
 * concurrent requests cannot both pass it.
 */

export interface StationFields {
  name: string;
  address: string;
  latitude: number;
  longitude: number;
  stationType: StationType;
  description: string | null;
  landmark: string | null;
  city: string;
  openingTime: string | null;
  closingTime: string | null;
  isVerified: boolean;
}

export const DEFAULT_CITY = 'Caracas';

/** An admin-created station is verified unless said otherwise: an admin vouches for it. */
export const stationDefaults = { city: DEFAULT_CITY, isVerified: true } as const;

const stationNotFound = () => notFound('StationNotFound', 'No such station.');

const coordsOutOfRange = () => unprocessable('CoordsOutOfRange', 'The coordinates are outside Venezuela.');

const lockName = (trx: Trx, key: string) => sql`SELECT pg_advisory_xact_lock(4290, hashtext(${key}))`.execute(trx);

/** The live station of that name within the duplicate radius, other than `exceptId`. */
const duplicateOf = async (trx: Trx, f: Pick<StationFields, 'name' | 'latitude' | 'longitude'>, exceptId?: number) => {
  const sameName = await trx
    .selectFrom('stations')
    .select(['id', 'latitude', 'longitude'])
    .where('name_key', '=', nameKey(f.name))
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .execute();
  return sameName.find((s) => s.id !== exceptId && isDuplicateOf(s, f));
};

const duplicate = (id: number) =>
  unprocessable('DuplicateStation', 'A station with this name already exists within 50 m.', { station_id: id });

const rowOf = (f: StationFields) => ({
  name: f.name,
  name_key: nameKey(f.name),
  address: f.address,
  latitude: f.latitude,
  longitude: f.longitude,
  station_type: f.stationType,
  description: f.description,
  landmark: f.landmark,
  city: f.city,
  opening_time: f.openingTime,
  closing_time: f.closingTime,
  is_verified: f.isVerified,
});

const insertStation = async (trx: Trx, f: StationFields, now: Date): Promise<number> => {
  const { id } = await trx
    .insertInto('stations')
    .values({
      ...rowOf(f),
      is_active: true,
      created_at: now,
      updated_at: now,
      deleted_at: null,
      last_report_at: null,
      last_report_color: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
};

export const createStation = async (db: Db, f: StationFields, now: Date): Promise<StationRow> => {
  if (!inVenezuela(f)) throw coordsOutOfRange();
  const id = await db.transaction().execute(async (trx) => {
    await lockName(trx, nameKey(f.name));
    const dup = await duplicateOf(trx, f);
    if (dup) throw duplicate(dup.id);
    return insertStation(trx, f, now);
  });
  return (await findStation(db, id))!;
};

export type StationPatch = Partial<StationFields>;

const patchOf = (p: StationPatch) => {
  const row = rowOf({ ...p, name: p.name ?? '' } as StationFields);
  return Object.fromEntries(
    Object.entries(row).filter(([k, v]) => v !== undefined && !(k.startsWith('name') && p.name === undefined)),
  );
};

export const updateStation = async (db: Db, id: number, patch: StationPatch, now: Date): Promise<StationRow> => {
  await db.transaction().execute(async (trx) => {
    // The name lock before the row lock, in the order creates and imports take them (no deadlock).
    const unlocked = await trx
      .selectFrom('stations')
      .select('name')
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!unlocked) throw stationNotFound();
    const key = nameKey(patch.name ?? unlocked.name);
    await lockName(trx, key);
    const current = await trx
      .selectFrom('stations')
      .selectAll()
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (!current) throw stationNotFound();
    const next = {
      name: patch.name ?? current.name,
      latitude: patch.latitude ?? current.latitude,
      longitude: patch.longitude ?? current.longitude,
    };
    if ((patch.latitude !== undefined || patch.longitude !== undefined) && !inVenezuela(next)) throw coordsOutOfRange();
    // Renamed by someone else in between: hold that name's lock too.
    if (nameKey(next.name) !== key) await lockName(trx, nameKey(next.name));
    const dup = await duplicateOf(trx, next, id);
    if (dup) throw duplicate(dup.id);
    await trx
      .updateTable('stations')
      .set({ ...patchOf(patch), updated_at: now })
      .where('id', '=', id)
      .execute();
  });
  return (await findStation(db, id))!;
};

export type ImportOutcome = 'created' | 'updated';

/** A bulk-import row: a live station of the same name within 50 m is updated, otherwise one is created. */
export const upsertStation = async (db: Db, f: StationFields, now: Date): Promise<ImportOutcome> => {
  if (!inVenezuela(f)) throw coordsOutOfRange();
  return db.transaction().execute(async (trx) => {
    await lockName(trx, nameKey(f.name));
    const dup = await duplicateOf(trx, f);
    if (!dup) {
      await insertStation(trx, f, now);
      return 'created';
    }
    await trx
      .updateTable('stations')
      .set({ ...rowOf(f), updated_at: now })
      .where('id', '=', dup.id)
      .execute();
    return 'updated';
  });
};

export const setStationActive = async (db: Db, id: number, active: boolean, now: Date): Promise<StationRow> => {
  const r = await db
    .updateTable('stations')
    .set({ is_active: active, updated_at: now })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!Number(r.numUpdatedRows)) throw stationNotFound();
  return (await findStation(db, id))!;
};

/** A report this recent blocks the delete (deactivate instead). */
export const DELETE_BLOCK_DAYS = 7;

export const deleteStation = async (db: Db, id: number, now: Date): Promise<void> => {
  await db.transaction().execute(async (trx) => {
    // The row lock waits for reports being written (they lock the row too), so none slips past the check.
    const s = await trx
      .selectFrom('stations')
      .select('id')
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (!s) throw stationNotFound();
    const since = new Date(now.getTime() - DELETE_BLOCK_DAYS * 86_400_000);
    const recent = await trx
      .selectFrom('station_reports')
      .select('id')
      .where('station_id', '=', id)
      .where('created_at', '>', since)
      .limit(1)
      .executeTakeFirst();
    if (recent)
      throw unprocessable(
        'HasRecentReports',
        `The station has reports from the last ${DELETE_BLOCK_DAYS} days; deactivate it instead.`,
      );
    await trx.updateTable('stations').set({ deleted_at: now, updated_at: now }).where('id', '=', id).execute();
  });
};

export interface ReportInput {
  stationId: number;
  color: ReportColor;
  waitMinutes: number | null;
  comment: string | null;
  driverLat: number;
  driverLng: number;
}

/** A driver's traffic-light report; the same driver may report the same station again only after the cooldown. */
export const reportStation = async (
  db: Db,
  actor: Actor,
  input: ReportInput,
  now: Date,
  cooldownMinutes: number,
): Promise<number> => {
  const driverId = actor.driverId;
  if (!driverId) throw notFound('DriverNotFound', 'This account has no driver profile.');
  return db.transaction().execute(async (trx) => {
    // Locking the station row serialises its reports: the cooldown check, the insert and last_report_* are one
    // step per station (and a delete waits for them).
    const station = await trx
      .selectFrom('stations')
      .select(['id', 'last_report_at'])
      .where('id', '=', input.stationId)
      .where('deleted_at', 'is', null)
      .where('is_active', '=', true)
      .forUpdate()
      .executeTakeFirst();
    if (!station) throw stationNotFound();
    const previous = await trx
      .selectFrom('station_reports')
      .select('created_at')
      .where('driver_id', '=', driverId)
      .where('station_id', '=', input.stationId)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (previous) {
      const freeAt = new Date(previous.created_at).getTime() + cooldownMinutes * 60_000;
      if (freeAt > now.getTime()) {
        const retryAfterMinutes = Math.ceil((freeAt - now.getTime()) / 60_000);
        throw tooMany('Cooldown', `You reported this station recently; try again in ${retryAfterMinutes} min.`, {
          retryAfterMinutes,
        });
      }
    }
    const { id } = await trx
      .insertInto('station_reports')
      .values({
        station_id: input.stationId,
        driver_id: driverId,
        reporter_user_id: actor.id,
        color: input.color,
        wait_minutes: input.waitMinutes,
        comment: input.comment,
        driver_lat: input.driverLat,
        driver_lng: input.driverLng,
        created_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx
      .updateTable('stations')
      .set({ last_report_at: now, last_report_color: input.color })
      .where('id', '=', input.stationId)
      .where((eb) => eb.or([eb('last_report_at', 'is', null), eb('last_report_at', '<=', now)]))
      .execute();
    return id;
  });
};

export const postComment = async (
  db: Db,
  actor: Actor,
  stationId: number,
  content: string,
  now: Date,
): Promise<CommentRow> => {
  const station = await findStation(db, stationId);
  if (!station?.is_active) throw stationNotFound();
  const { id } = await db
    .insertInto('station_comments')
    .values({
      station_id: stationId,
      author_user_id: actor.id,
      author_role: actor.role as 'DRIVER',
      content,
      created_at: now,
      deleted_at: null,
      deleted_by: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return (await findComment(db, id))!;
};

const softDeleteComment = (db: Db, id: number, by: string, now: Date) =>
  db
    .updateTable('station_comments')
    .set({ deleted_at: now, deleted_by: by })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .execute();

/** Only the author withdraws their comment (403 for anyone else; 404 NotFound when there is no such comment). */
export const deleteOwnComment = async (
  db: Db,
  actor: Actor,
  stationId: number,
  commentId: number,
  now: Date,
): Promise<void> => {
  const station = await findStation(db, stationId);
  if (!station?.is_active) throw stationNotFound();
  const comment = await findComment(db, commentId);
  if (!comment || comment.station_id !== stationId) throw notFound('NotFound', 'No such comment.');
  if (comment.author_user_id !== actor.id) throw forbidden('Forbidden', 'Only the author may delete this comment.');
  await softDeleteComment(db, commentId, `user:${actor.id}`, now);
};

export const moderateComment = async (
  db: Db,
  admin: Actor,
  stationId: number,
  commentId: number,
  now: Date,
): Promise<void> => {
  if (!(await findStation(db, stationId))) throw stationNotFound();
  const comment = await findComment(db, commentId);
  if (!comment || comment.station_id !== stationId)
    throw notFound('CommentNotFound', 'No such comment on this station.');
  await softDeleteComment(db, commentId, `admin:${admin.id}`, now);
};

/**
 * Per-caller request limits (docs/domain-rules.md), on the identity area's rate limits (every instance counts the same
 * hits). Refused → 429 Cooldown with retryAfterSeconds and a Retry-After header.
 */
export const enforceLimit = async (limit: RateLimit, key: string): Promise<void> => {
  const verdict = await limit.hit(key);
  if (!verdict.allowed)
    throw tooMany('Cooldown', `Too many requests; try again in ${verdict.retryAfterSeconds} s.`, {
      retryAfterSeconds: verdict.retryAfterSeconds,
    });
};
