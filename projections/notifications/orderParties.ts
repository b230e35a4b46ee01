import { sql, type Kysely, type Migration } from 'kysely';
import type { Trx } from '../../infra/db/database.js';
import { idOf } from './ruleTypes.js';
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

const upsert = async (trx: Trx, orderId: number, values: { client_id?: number | null; driver_id?: number | null }) => {
  const set = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined && v !== null));
  await trx
    .insertInto('notification_order_parties')
    .values({ order_id: orderId, client_id: values.client_id ?? null, driver_id: values.driver_id ?? null })
    .onConflict((oc) =>
      Object.keys(set).length ? oc.column('order_id').doUpdateSet(set) : oc.column('order_id').doNothing(),
    )
    .execute();
};

const track = async (trx: Trx, e: AnyRecordedEvent) => {
  const orderId = idOf(e.data?.orderId);
  if (orderId === null) return;
  await upsert(trx, orderId, { client_id: idOf(e.data?.clientId), driver_id: idOf(e.data?.driverId) });
};

/** Events that name an order's client or its assigned driver (OfferPlaced names a bidder, not the driver). */
export const orderPartyTrackers: Record<string, (trx: Trx, e: AnyRecordedEvent) => Promise<void>> = {
  OrderCreated: track,
  OfferAccepted: track,
};

export const orderPartiesOf = async (
  trx: Trx,
  orderId: unknown,
): Promise<{ clientId: number | null; driverId: number | null }> => {
  const id = idOf(orderId);
  if (id === null) return { clientId: null, driverId: null };
  const row = await trx
    .selectFrom('notification_order_parties')
    .select(['client_id', 'driver_id'])
    .where('order_id', '=', id)
    .executeTakeFirst();
  return { clientId: idOf(row?.client_id), driverId: idOf(row?.driver_id) };
};
