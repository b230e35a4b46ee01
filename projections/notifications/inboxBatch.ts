import type { Trx } from '../../infra/db/database.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import { idOf } from './ruleTypes.js';

export interface OrderParties {
  clientId: number | null;
  driverId: number | null;
}

/**
 * What the notification rules of one batch look up (an order's parties, a driver profile's user) and what
 * its trackers change, held in memory for the whole batch: the rows the batch's events name are read in two
 * statements before the first event, the trackers change the maps as each event comes (a later event of
 * the same batch sees them), and the changes are written once at the end, one multi-row upsert per table.
 * Every upsert writes the final value of its row, so a batch applied again after a crash writes the same
 * rows.
 */
export class InboxBatch {
  private readonly parties = new Map<number, OrderParties>();
  private readonly driverUsers = new Map<number, number | null>();
  private readonly partiesChanged = new Set<number>();
  private readonly driverUsersChanged = new Set<number>();

  /** The rows the events name: their orders' parties, then the users of every driver named or found there. */
  static async load(trx: Trx, events: RecordedEvent[]): Promise<InboxBatch> {
    const batch = new InboxBatch();
    const data = events.map((e) => (e.data ?? {}) as Record<string, unknown>);
    const orderIds = [...new Set(data.map((d) => idOf(d.orderId)).filter((id) => id !== null))];
    if (orderIds.length > 0) {
      const rows = await trx
        .selectFrom('notification_order_parties')
        .select(['order_id', 'client_id', 'driver_id'])
        .where('order_id', '=', (eb) => eb.fn.any(eb.val(orderIds)))
        .execute();
      for (const r of rows)
        batch.parties.set(Number(r.order_id), { clientId: idOf(r.client_id), driverId: idOf(r.driver_id) });
    }
    const driverIds = new Set(data.map((d) => idOf(d.driverId)).filter((id) => id !== null));
    for (const p of batch.parties.values()) if (p.driverId !== null) driverIds.add(p.driverId);
    if (driverIds.size > 0) {
      const rows = await trx
        .selectFrom('notification_driver_users')
        .select(['driver_id', 'user_id'])
        .where('driver_id', '=', (eb) => eb.fn.any(eb.val([...driverIds])))
        .execute();
      for (const r of rows) batch.driverUsers.set(Number(r.driver_id), idOf(r.user_id));
    }
    return batch;
  }

  partiesOf(orderId: unknown): OrderParties {
    const id = idOf(orderId);
    return (id === null ? undefined : this.parties.get(id)) ?? { clientId: null, driverId: null };
  }

  /** The app user behind a driver profile, or null when unknown. */
  userOfDriver(driverId: unknown): number | null {
    const id = idOf(driverId);
    return id === null ? null : (this.driverUsers.get(id) ?? null);
  }

  /** An order's client or assigned driver as an event names them; a party it does not name stays as it was. */
  trackParties(orderId: number, named: OrderParties): void {
    const was = this.partiesOf(orderId);
    this.parties.set(orderId, { clientId: named.clientId ?? was.clientId, driverId: named.driverId ?? was.driverId });
    this.partiesChanged.add(orderId);
  }

  trackDriverUser(driverId: number, userId: number): void {
    this.driverUsers.set(driverId, userId);
    this.driverUsersChanged.add(driverId);
  }

  /** The trackers' changes, one statement per table. */
  async write(trx: Trx): Promise<void> {
    if (this.partiesChanged.size > 0)
      await trx
        .insertInto('notification_order_parties')
        .values(
          [...this.partiesChanged].map((orderId) => {
            const p = this.partiesOf(orderId);
            return { order_id: orderId, client_id: p.clientId, driver_id: p.driverId };
          }),
        )
        .onConflict((oc) =>
          oc.column('order_id').doUpdateSet((eb) => ({
            client_id: eb.fn.coalesce('excluded.client_id', 'notification_order_parties.client_id'),
            driver_id: eb.fn.coalesce('excluded.driver_id', 'notification_order_parties.driver_id'),
          })),
        )
        .execute();
    if (this.driverUsersChanged.size > 0)
      await trx
        .insertInto('notification_driver_users')
        .values(
          [...this.driverUsersChanged].map((driverId) => ({
            driver_id: driverId,
            user_id: this.driverUsers.get(driverId)!,
          })),
        )
        .onConflict((oc) => oc.column('driver_id').doUpdateSet((eb) => ({ user_id: eb.ref('excluded.user_id') })))
        .execute();
  }
}
