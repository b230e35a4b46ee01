import { distanceKm } from '../../domain/geo.js';
import type { Db } from '../../infra/db/database.js';
import type { SurplusListingRow } from './surplusListings.js';

export const findSurplusListing = async (db: Db, id: number): Promise<SurplusListingRow | null> =>
  (await db.selectFrom('surplus_listings').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;

/** GET /surplus/me: ACTIVA, not past expires_at (the expiry timer may not have run yet), liters left. */
export const activeListingsOfDriver = (db: Db, driverId: number, now: Date): Promise<SurplusListingRow[]> =>
  db
    .selectFrom('surplus_listings')
    .selectAll()
    .where('driver_id', '=', driverId)
    .where('status', '=', 'ACTIVA')
    .where('expires_at', '>', now)
    .where((eb) => eb('available_liters', '>', eb.ref('sold_liters')))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();

export const NEARBY_SURPLUS_LIMIT = 100;

/** Reservable listings within radiusKm, nearest first: a bounding box in SQL narrows, the great circle decides. */
export const nearbyActiveListings = async (
  db: Db,
  near: { latitude: number; longitude: number; radiusKm: number },
  now: Date,
): Promise<{ row: SurplusListingRow; distanceKm: number }[]> => {
  const dLat = near.radiusKm / 111;
  const dLng = near.radiusKm / (111 * Math.max(0.01, Math.cos((near.latitude * Math.PI) / 180)));
  const rows = await db
    .selectFrom('surplus_listings')
    .selectAll()
    .where('status', '=', 'ACTIVA')
    .where('expires_at', '>', now)
    .where('latitude', '>=', near.latitude - dLat)
    .where('latitude', '<=', near.latitude + dLat)
    .where('longitude', '>=', near.longitude - dLng)
    .where('longitude', '<=', near.longitude + dLng)
    .execute();
  return rows
    .map((row) => ({ row, distanceKm: distanceKm(near, { latitude: row.latitude, longitude: row.longitude }) }))
    .filter((r) => r.distanceKm <= near.radiusKm)
    .sort((a, b) => a.distanceKm - b.distanceKm || a.row.id - b.row.id)
    .slice(0, NEARBY_SURPLUS_LIMIT);
};

/** ACTIVA listings whose expires_at has passed, for the expiry timer. */
export const dueSurplusListings = async (db: Db, now: Date, limit: number): Promise<number[]> =>
  (
    await db
      .selectFrom('surplus_listings')
      .select('id')
      .where('status', '=', 'ACTIVA')
      .where('expires_at', '<=', now)
      .orderBy('expires_at')
      .limit(limit)
      .execute()
  ).map((r) => Number(r.id));
