import { sql, type Kysely, type Migration } from 'kysely';
import { idOf, type Tracker } from './ruleTypes.js';

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

export const driverUserTrackers: Record<string, Tracker> = {
  DriverRegistered: (batch, e) => {
    const driverId = idOf(e.data?.driverId);
    const userId = idOf(e.data?.userId);
    if (driverId !== null && userId !== null) batch.trackDriverUser(driverId, userId);
  },
};
