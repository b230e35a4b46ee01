import { sql } from 'kysely';
import type {
  OfferAcceptedData,
  OrderCancelledData,
  OrderCreatedData,
  OrderDeliveredData,
  OrderExpiredData,
} from '../../domain/order/events.js';
import type { Trx } from '../../infra/db/database.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import type { EventHandler } from '../projector.js';

/**
 * Order events as the drivers read model (projections/drivers, identity's) needs them: the liters a driver
 * has committed to accepted, undelivered orders, and its completed deliveries. They write only `drivers`,
 * so they belong in the drivers projector: spread them into its handlers.
 */
type E<D> = RecordedEvent<string, D>;

const commit = (trx: Trx, driverId: number, liters: number, at: string) =>
  trx
    .updateTable('drivers')
    .set({ committed_liters: sql`greatest(0, committed_liters + ${liters})`, last_activity_at: new Date(at) })
    .where('driver_id', '=', driverId)
    .execute();

export const driverOrderHandlers: Record<string, EventHandler> = {
  OrderCreated: async (trx, { data: d }: E<OrderCreatedData>) => {
    if (d.driverId !== null) await commit(trx, d.driverId, d.litersRequested, d.createdAt);
  },
  OfferAccepted: (trx, { data: d }: E<OfferAcceptedData>) => commit(trx, d.driverId, d.litersRequested, d.acceptedAt),
  OrderDelivered: (trx, { data: d }: E<OrderDeliveredData>) =>
    trx
      .updateTable('drivers')
      .set({
        committed_liters: sql`greatest(0, committed_liters - ${d.litersRequested})`,
        completed_orders: sql`completed_orders + 1`,
        last_activity_at: new Date(d.deliveredAt),
      })
      .where('driver_id', '=', d.driverId)
      .execute(),
  OrderCancelled: async (trx, { data: d }: E<OrderCancelledData>) => {
    if (d.driverId !== null) await commit(trx, d.driverId, -d.litersRequested, d.cancelledAt);
  },
  OrderExpired: async (trx, { data: d }: E<OrderExpiredData>) => {
    if (d.driverId !== null) await commit(trx, d.driverId, -d.litersRequested, d.expiredAt);
  },
};
