import { sql, type Kysely, type Migration } from 'kysely';
import type { InboxBatch } from './inboxBatch.js';
import { idOf, type Tracker } from './ruleTypes.js';
import type { AnyRecordedEvent } from '../projector.js';

/**
 * Who the client and the assigned driver of each order are, as far as the inbox needs to know: several order
 * events (OfferPlaced, TripStarted, OrderPaid …) name only the order. Kept by the notifications projector
 * itself so that it depends on no other read model.
 */
declare module '../../infra/db/database.js' {
  interface Database {
    notification_order_parties: { order_id: number; client_id: number | null; driver_id: number | null };
  }
}

export const orderPartiesMigrations: Record<string, Migration> = {
  '0601_notification_order_parties': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE notification_order_parties (
        order_id bigint PRIMARY KEY,
        client_id bigint,
        driver_id bigint
      )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE notification_order_parties`.execute(db);
    },
  },
};

const track = (batch: InboxBatch, e: AnyRecordedEvent) => {
  const orderId = idOf(e.data?.orderId);
  if (orderId === null) return;
  batch.trackParties(orderId, { clientId: idOf(e.data?.clientId), driverId: idOf(e.data?.driverId) });
};

/** Events that name an order's client or its assigned driver (OfferPlaced names a bidder, not the driver). */
export const orderPartyTrackers: Record<string, Tracker> = {
  OrderCreated: track,
  OfferAccepted: track,
};
