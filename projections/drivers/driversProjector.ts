import { sql, type Kysely, type Migration } from 'kysely';
import type {
  DriverApprovedData,
  DriverDocumentRecordedData,
  DriverKycSubmittedData,
  DriverOnlineChangedData,
  DriverProfileUpdatedData,
  DriverRegisteredData,
  DriverRejectedData,
  DriverReinstatedData,
  DriverRenamedData,
  DriverStatus,
  DriverSuspendedData,
  DriverTankUpdatedData,
  KycState,
} from '../../domain/driver/events.js';
import type { Trx } from '../../infra/db/database.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import { projector } from '../projector.js';
import { driverOrderHandlers } from '../orders/driverOrderHandlers.js';
import { driverRatingHandlers } from '../ratings/driverRatingHandlers.js';

/**
 * The drivers read model. The orders, ratings and wallet areas add handlers for their own events to this
 * projector to keep committed_liters, available_liters, avg_rating and completed_orders current.
 */
declare module '../../infra/db/database.js' {
  interface Database {
    drivers: {
      driver_id: number;
      user_id: number;
      name: string | null;
      phone: string;
      status: DriverStatus;
      kyc_state: KycState;
      block_reason: string | null;
      is_online: boolean;
      available_liters: number;
      /** Liters of accepted, undelivered orders: remainingLiters = available_liters − committed_liters. */
      committed_liters: number;
      capacity_liters: number | null;
      plate: string | null;
      city_id: number | null;
      avg_rating: number;
      ratings_count: number;
      completed_orders: number;
      registered_at: Date;
      kyc_submitted_at: Date | null;
      kyc_approved_at: Date | null;
      last_activity_at: Date;
    };
    driver_documents: {
      driver_id: number;
      type: string;
      expires_at: string | null;
      file_url: string | null;
      recorded_at: Date;
    };
  }
}

export const driversMigrations: Record<string, Migration> = {
  '0110_drivers_read_model': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE drivers (
        driver_id bigint PRIMARY KEY,
        user_id bigint NOT NULL UNIQUE,
        name text,
        phone text NOT NULL,
        status text NOT NULL,
        kyc_state text NOT NULL,
        block_reason text,
        is_online boolean NOT NULL DEFAULT false,
        available_liters integer NOT NULL DEFAULT 0,
        committed_liters integer NOT NULL DEFAULT 0,
        capacity_liters integer,
        plate text,
        city_id integer,
        avg_rating double precision NOT NULL DEFAULT 0,
        ratings_count integer NOT NULL DEFAULT 0,
        completed_orders integer NOT NULL DEFAULT 0,
        registered_at timestamptz NOT NULL,
        kyc_submitted_at timestamptz,
        kyc_approved_at timestamptz,
        last_activity_at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX drivers_online ON drivers (is_online, status) WHERE is_online`.execute(db);
      await sql`CREATE INDEX drivers_city ON drivers (city_id, kyc_state)`.execute(db);
      await sql`CREATE TABLE driver_documents (
        driver_id bigint NOT NULL,
        type text NOT NULL,
        expires_at date,
        file_url text,
        recorded_at timestamptz NOT NULL,
        PRIMARY KEY (driver_id, type)
      )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE driver_documents, drivers`.execute(db);
    },
  },
};

type E<D> = RecordedEvent<string, D>;

const update = (trx: Trx, driverId: number, set: Record<string, unknown>) =>
  trx.updateTable('drivers').set(set).where('driver_id', '=', driverId).execute();

export const driversProjector = projector('drivers', {
  tables: ['drivers', 'driver_documents'],
  handlers: {
    // Committed liters and completed deliveries follow the driver's orders.
    ...driverOrderHandlers,
    // avg_rating and ratings_count follow the driver's ratings.
    ...driverRatingHandlers,
    DriverRegistered: (trx, e: E<DriverRegisteredData>) =>
      trx
        .insertInto('drivers')
        .values({
          driver_id: e.data.driverId,
          user_id: e.data.userId,
          name: e.data.name,
          phone: e.data.phone,
          status: 'PENDING_VERIFICATION',
          kyc_state: 'PENDING_KYC',
          block_reason: null,
          is_online: false,
          available_liters: 0,
          committed_liters: 0,
          capacity_liters: null,
          plate: null,
          city_id: null,
          avg_rating: 0,
          ratings_count: 0,
          completed_orders: 0,
          registered_at: new Date(e.data.registeredAt),
          kyc_submitted_at: null,
          kyc_approved_at: null,
          last_activity_at: new Date(e.data.registeredAt),
        })
        .onConflict((oc) => oc.column('driver_id').doNothing())
        .execute(),
    DriverRenamed: (trx, e: E<DriverRenamedData>) => update(trx, e.data.driverId, { name: e.data.name }),
    DriverProfileUpdated: (trx, e: E<DriverProfileUpdatedData>) =>
      update(trx, e.data.driverId, {
        plate: e.data.plate,
        capacity_liters: e.data.capacityLiters,
        city_id: e.data.cityId,
        last_activity_at: new Date(e.data.at),
      }),
    DriverDocumentRecorded: (trx, e: E<DriverDocumentRecordedData>) =>
      trx
        .insertInto('driver_documents')
        .values({
          driver_id: e.data.driverId,
          type: e.data.type,
          expires_at: e.data.expiresAt,
          file_url: e.data.fileUrl,
          recorded_at: new Date(e.data.recordedAt),
        })
        .onConflict((oc) =>
          oc.columns(['driver_id', 'type']).doUpdateSet({
            expires_at: e.data.expiresAt,
            file_url: e.data.fileUrl,
            recorded_at: new Date(e.data.recordedAt),
          }),
        )
        .execute(),
    DriverKycSubmitted: (trx, e: E<DriverKycSubmittedData>) =>
      update(trx, e.data.driverId, {
        kyc_state: 'PENDING_REVIEW',
        status: 'PENDING_VERIFICATION',
        block_reason: null,
        kyc_submitted_at: new Date(e.data.at),
      }),
    DriverApproved: (trx, e: E<DriverApprovedData>) =>
      update(trx, e.data.driverId, {
        kyc_state: 'APPROVED',
        status: 'ACTIVE',
        block_reason: null,
        kyc_approved_at: new Date(e.data.at),
      }),
    DriverRejected: (trx, e: E<DriverRejectedData>) =>
      update(trx, e.data.driverId, {
        kyc_state: 'REJECTED',
        status: 'REJECTED',
        block_reason: e.data.reason,
        is_online: false,
      }),
    DriverSuspended: (trx, e: E<DriverSuspendedData>) =>
      update(trx, e.data.driverId, { status: 'SUSPENDED', block_reason: e.data.reason, is_online: false }),
    DriverReinstated: (trx, e: E<DriverReinstatedData>) =>
      update(trx, e.data.driverId, { status: 'ACTIVE', block_reason: null }),
    DriverWentOnline: (trx, e: E<DriverOnlineChangedData>) =>
      update(trx, e.data.driverId, { is_online: true, last_activity_at: new Date(e.data.at) }),
    DriverWentOffline: (trx, e: E<DriverOnlineChangedData>) =>
      update(trx, e.data.driverId, { is_online: false, last_activity_at: new Date(e.data.at) }),
    DriverTankUpdated: (trx, e: E<DriverTankUpdatedData>) =>
      update(trx, e.data.driverId, { available_liters: e.data.availableLiters, last_activity_at: new Date(e.data.at) }),
  },
});
