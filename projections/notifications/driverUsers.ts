import { sql, type Kysely, type Migration } from 'kysely';
import type { Trx } from '../../infra/db/database.js';
import { idOf } from './ruleTypes.js';
import type { AnyRecordedEvent } from '../projector.js';

/**
 * Driver events and order events name the driver profile (driverId); the inbox belongs to the app user.
 * The notifications projector keeps the mapping itself (from DriverRegistered) to depend on no other
 * read model.
 */
declare module '../../infra/db/database.js' {
  interface Database {
    notification_driver_users: { driver_id: number; user_id: number };
  }
}

export const driverUsersMigrations: Record<string, Migration> = {
  '0602_notification_driver_users': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE notification_driver_users (
        driver_id bigint PRIMARY KEY,
        user_id bigint NOT NULL
      )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE notification_driver_users`.execute(db);
    },
  },
};

export const driverUserTrackers: Record<string, (trx: Trx, e: AnyRecordedEvent) => Promise<void>> = {
  DriverRegistered: async (trx, e) => {
    const driverId = idOf(e.data?.driverId);
    const userId = idOf(e.data?.userId);
    if (driverId === null || userId === null) return;
    await trx
      .insertInto('notification_driver_users')
      .values({ driver_id: driverId, user_id: userId })
      .onConflict((oc) => oc.column('driver_id').doUpdateSet({ user_id: userId }))
      .execute();
  },
};

/** The app user behind a driver profile, or null when unknown. */
export const userOfDriver = async (trx: Trx, driverId: unknown): Promise<number | null> => {
  const id = idOf(driverId);
  if (id === null) return null;
  const row = await trx
    .selectFrom('notification_driver_users')
    .select('user_id')
    .where('driver_id', '=', id)
    .executeTakeFirst();
  return idOf(row?.user_id);
};
