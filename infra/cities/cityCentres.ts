import { sql, type Kysely, type Migration } from 'kysely';
import type { CityCentre } from '../../domain/city.js';
import type { Db } from '../db/database.js';

/** Centres of the seeded cities (stores/identity/identityTables.ts SEEDED_CITIES), city hall squares to 4 decimals. */
export const CITY_CENTRES: Record<number, { latitude: number; longitude: number }> = {
  1: { latitude: 10.4806, longitude: -66.9036 },
  2: { latitude: 10.6427, longitude: -71.6125 },
  3: { latitude: 10.162, longitude: -68.0077 },
  4: { latitude: 10.0678, longitude: -69.3474 },
  5: { latitude: 10.2469, longitude: -67.5958 },
  6: { latitude: 8.3533, longitude: -62.6413 },
  7: { latitude: 10.1363, longitude: -64.6862 },
  8: { latitude: 9.7457, longitude: -63.1832 },
  9: { latitude: 10.214, longitude: -64.6328 },
  10: { latitude: 8.5897, longitude: -71.1561 },
  11: { latitude: 7.7669, longitude: -72.225 },
  12: { latitude: 10.453, longitude: -64.1826 },
  13: { latitude: 8.6226, longitude: -70.2075 },
  14: { latitude: 10.3447, longitude: -67.0433 },
  15: { latitude: 11.6956, longitude: -70.1996 },
};

export const cityCentreMigrations: Record<string, Migration> = {
  '0300_city_centres': {
    async up(db: Kysely<unknown>) {
      await sql`ALTER TABLE cities ADD COLUMN latitude double precision, ADD COLUMN longitude double precision`.execute(
        db,
      );
      for (const [id, c] of Object.entries(CITY_CENTRES)) {
        await sql`UPDATE cities SET latitude = ${c.latitude}, longitude = ${c.longitude}
          WHERE id = ${Number(id)}`.execute(db);
      }
    },
    async down(db: Kysely<unknown>) {
      await sql`ALTER TABLE cities DROP COLUMN latitude, DROP COLUMN longitude`.execute(db);
    },
  },
};

/** Every city that has a centre, in the seeded order (Caracas first: nearestCityId gives it the ties). */
export const cityCentres = async (db: Db): Promise<CityCentre[]> => {
  const { rows } = await sql<CityCentre>`SELECT id, latitude, longitude FROM cities WHERE latitude IS NOT NULL
      ORDER BY sort_order`.execute(db);
  return rows.map((r) => ({ id: Number(r.id), latitude: Number(r.latitude), longitude: Number(r.longitude) }));
};
