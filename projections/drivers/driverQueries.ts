import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../infra/db/database.js';
import type { DriverStatus, KycState } from '../../domain/driver/events.js';
import { likeOf, nameHasWords, phoneHasDigits, searchable } from '../textSearch.js';

/** Read side of drivers, for this area and for others. */
export interface DriverRecord {
  driverId: number;
  userId: number;
  name: string | null;
  phone: string;
  status: DriverStatus;
  kycState: KycState;
  blockReason: string | null;
  isOnline: boolean;
  availableLiters: number;
  committedLiters: number;
  remainingLiters: number;
  capacityLiters: number | null;
  plate: string | null;
  cityId: number | null;
  avgRating: number;
  ratingsCount: number;
  completedOrders: number;
  /** Holds a current SANITARY_CERT (docs/decisions/0011-identity-and-access.md). */
  isCertified: boolean;
  registeredAt: Date;
  kycApprovedAt: Date | null;
  location: { latitude: number; longitude: number; at: Date } | null;
}

export interface DriverDocumentRecord {
  type: string;
  expiresAt: string | null;
  fileUrl: string | null;
  recordedAt: Date;
}

const isoDate = (d: Date) => d.toISOString().slice(0, 10);

const baseQuery = (db: Db, today: Date) =>
  db
    .selectFrom('drivers as d')
    .leftJoin('driver_locations as l', 'l.driver_id', 'd.driver_id')
    .selectAll('d')
    .select(['l.latitude', 'l.longitude', 'l.at as location_at'])
    .select(
      sql<boolean>`EXISTS (SELECT 1 FROM driver_documents c
        WHERE c.driver_id = d.driver_id AND c.type = 'SANITARY_CERT'
        AND (c.expires_at IS NULL OR c.expires_at >= ${isoDate(today)}::date))`.as('is_certified'),
    );

type Row = Awaited<ReturnType<ReturnType<typeof baseQuery>['executeTakeFirstOrThrow']>>;

const toRecord = (r: Row): DriverRecord => ({
  driverId: r.driver_id,
  userId: r.user_id,
  name: r.name,
  phone: r.phone,
  status: r.status,
  kycState: r.kyc_state,
  blockReason: r.block_reason,
  isOnline: r.is_online,
  availableLiters: r.available_liters,
  committedLiters: r.committed_liters,
  remainingLiters: Math.max(0, r.available_liters - r.committed_liters),
  capacityLiters: r.capacity_liters,
  plate: r.plate,
  cityId: r.city_id,
  avgRating: Number(r.avg_rating),
  ratingsCount: r.ratings_count,
  completedOrders: r.completed_orders,
  isCertified: r.is_certified,
  registeredAt: new Date(r.registered_at),
  kycApprovedAt: r.kyc_approved_at ? new Date(r.kyc_approved_at) : null,
  location:
    r.latitude !== null && r.longitude !== null && r.location_at
      ? { latitude: r.latitude, longitude: r.longitude, at: new Date(r.location_at) }
      : null,
});

/**
 * The drivers `where` names (a condition on `d`, which may refer to the enclosing query), as one JSON array
 * to embed in a larger read; `driversFromJson` turns it back into records.
 */
export const driversAsJson = (db: Db, today: Date, where: RawBuilder<boolean>): RawBuilder<unknown> =>
  sql`coalesce((SELECT json_agg(r) FROM (${baseQuery(db, today).where(where)}) r), '[]')`;

export const driversFromJson = (rows: Row[]): DriverRecord[] => rows.map(toRecord);

export const findDriver = async (db: Db, driverId: number, today: Date): Promise<DriverRecord | null> => {
  const r = await baseQuery(db, today).where('d.driver_id', '=', driverId).executeTakeFirst();
  return r ? toRecord(r) : null;
};

export const findDriverByUserId = async (db: Db, userId: number, today: Date): Promise<DriverRecord | null> => {
  const r = await baseQuery(db, today).where('d.user_id', '=', userId).executeTakeFirst();
  return r ? toRecord(r) : null;
};

export interface DriverListFilter {
  status?: DriverStatus;
  kycState?: KycState;
  cityId?: number;
  /** An admin's scope; undefined means every city (drivers without a city included). */
  cityIds?: number[];
  /** Any part of the name, phone, id number (cédula) or plate; accents, case and punctuation ignored. */
  q?: string;
  limit: number;
  page: number;
}

const alnum = (column: RawBuilder<unknown>) =>
  sql`regexp_replace(lower(coalesce(${column}, '')), '[^a-z0-9]', '', 'g')`;

/**
 * The drivers a search finds: the name by its words and the phone by its digits (projections/textSearch.ts),
 * the id number and plate without their dashes, dots and spaces. The id number is the payout account's,
 * kept by the reports' driver rows.
 */
const matching = (q: string): RawBuilder<boolean> => {
  const compact = searchable(q.trim()).replace(/[^a-z0-9]/g, '');
  const conditions = [nameHasWords(sql.ref('d.name'), q), phoneHasDigits(sql.ref('d.phone'), q)].filter(
    (c): c is RawBuilder<boolean> => c !== null,
  );
  if (compact) {
    conditions.push(sql<boolean>`${alnum(sql.ref('d.plate'))} LIKE ${likeOf(compact)}`);
    conditions.push(sql<boolean>`EXISTS (SELECT 1 FROM report_drivers r WHERE r.driver_id = d.driver_id
      AND ${alnum(sql.ref('r.id_number'))} LIKE ${likeOf(compact)})`);
  }
  return sql<boolean>`(${sql.join(conditions, sql` OR `)})`;
};

export const listDrivers = async (
  db: Db,
  f: DriverListFilter,
  today: Date,
): Promise<{ items: DriverRecord[]; total: number }> => {
  let q = baseQuery(db, today);
  if (f.status) q = q.where('d.status', '=', f.status);
  if (f.kycState) q = q.where('d.kyc_state', '=', f.kycState);
  if (f.cityId !== undefined) q = q.where('d.city_id', '=', f.cityId);
  if (f.q?.trim()) q = q.where(matching(f.q));
  if (f.cityIds) q = f.cityIds.length ? q.where('d.city_id', 'in', f.cityIds) : q.where(sql<boolean>`false`);
  const { total } = await q
    .clearSelect()
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  const rows = await q
    .orderBy('d.registered_at', 'desc')
    .orderBy('d.driver_id', 'desc')
    .limit(f.limit)
    .offset((f.page - 1) * f.limit)
    .execute();
  return { items: rows.map(toRecord), total: Number(total) };
};

export const listDriverDocuments = async (db: Db, driverId: number): Promise<DriverDocumentRecord[]> => {
  const rows = await db
    .selectFrom('driver_documents')
    .select(['type', 'file_url', 'recorded_at'])
    .select(sql<string | null>`to_char(expires_at, 'YYYY-MM-DD')`.as('expires_at'))
    .where('driver_id', '=', driverId)
    .orderBy('type')
    .execute();
  return rows.map((r) => ({
    type: r.type,
    expiresAt: r.expires_at,
    fileUrl: r.file_url,
    recordedAt: new Date(r.recorded_at),
  }));
};
