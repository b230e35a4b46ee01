import { sql, type Kysely, type Migration } from 'kysely';
import type {
  SurplusCancelledData,
  SurplusExpiredData,
  SurplusListedData,
  SurplusReservationReleasedData,
  SurplusReservedData,
  SurplusStatus,
} from '../../domain/surplus/events.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import { projector } from '../projector.js';

/** The surplus listings read model: one row per listing. */
export interface SurplusListingRow {
  id: number;
  driver_id: number;
  city_id: number | null;
  available_liters: number;
  /** The driver's totalAmount (gross for the whole listing). */
  total_price_cents: number;
  description: string | null;
  latitude: number;
  longitude: number;
  address: string;
  status: SurplusStatus;
  sold_liters: number;
  order_id: number | null;
  client_id: number | null;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
}

declare module '../../infra/db/database.js' {
  interface Database {
    surplus_listings: SurplusListingRow;
  }
}

export const surplusListingMigrations: Record<string, Migration> = {
  '0950_surplus_listings': {
    async up(db: Kysely<unknown>) {
      // Listing ids are the spec's integers, handed out by the command side before the event.
      await sql`CREATE SEQUENCE IF NOT EXISTS surplus_listing_id_seq`.execute(db);
      await sql`CREATE TABLE surplus_listings (
        id bigint PRIMARY KEY,
        driver_id bigint NOT NULL,
        city_id bigint,
        available_liters integer NOT NULL,
        total_price_cents bigint NOT NULL,
        description text,
        latitude double precision NOT NULL,
        longitude double precision NOT NULL,
        address text NOT NULL,
        status text NOT NULL,
        sold_liters integer NOT NULL,
        order_id bigint,
        client_id bigint,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX surplus_listings_driver ON surplus_listings (driver_id, created_at DESC)`.execute(db);
      await sql`CREATE INDEX surplus_listings_active ON surplus_listings (latitude, longitude)
        WHERE status = 'ACTIVA'`.execute(db);
      await sql`CREATE INDEX surplus_listings_due ON surplus_listings (expires_at) WHERE status = 'ACTIVA'`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE surplus_listings`.execute(db);
      await sql`DROP SEQUENCE surplus_listing_id_seq`.execute(db);
    },
  },
};

type Event<D> = RecordedEvent<string, D>;

export const surplusListingsProjector = projector('surplus_listings', {
  tables: ['surplus_listings'],
  handlers: {
    SurplusListed: (trx, { data: d }: Event<SurplusListedData>) =>
      trx
        .insertInto('surplus_listings')
        .values({
          id: d.listingId,
          driver_id: d.driverId,
          city_id: d.cityId,
          available_liters: d.availableLiters,
          total_price_cents: d.driverGrossCents,
          description: d.description,
          latitude: d.latitude,
          longitude: d.longitude,
          address: d.address,
          status: 'ACTIVA',
          sold_liters: 0,
          order_id: null,
          client_id: null,
          expires_at: new Date(d.expiresAt),
          created_at: new Date(d.listedAt),
          updated_at: new Date(d.listedAt),
        })
        .execute(),
    SurplusReserved: (trx, { data: d }: Event<SurplusReservedData>) =>
      trx
        .updateTable('surplus_listings')
        .set((eb) => ({
          status: 'RESERVADA',
          sold_liters: eb.ref('available_liters'),
          order_id: d.orderId,
          client_id: d.clientId,
          updated_at: new Date(d.reservedAt),
        }))
        .where('id', '=', d.listingId)
        .execute(),
    SurplusReservationReleased: (trx, { data: d }: Event<SurplusReservationReleasedData>) =>
      trx
        .updateTable('surplus_listings')
        .set({ status: 'ACTIVA', sold_liters: 0, order_id: null, client_id: null, updated_at: new Date(d.releasedAt) })
        .where('id', '=', d.listingId)
        .where('order_id', '=', d.orderId)
        .execute(),
    SurplusCancelled: (trx, { data: d }: Event<SurplusCancelledData>) =>
      trx
        .updateTable('surplus_listings')
        .set({ status: 'CANCELADA', updated_at: new Date(d.cancelledAt) })
        .where('id', '=', d.listingId)
        .execute(),
    SurplusExpired: (trx, { data: d }: Event<SurplusExpiredData>) =>
      trx
        .updateTable('surplus_listings')
        .set({ status: 'EXPIRADA', updated_at: new Date(d.expiredAt) })
        .where('id', '=', d.listingId)
        .execute(),
  },
});
