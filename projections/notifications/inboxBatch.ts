import type { Trx } from '../../infra/db/database.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import type { BatchMemory } from '../projector.js';
import { idOf } from './ruleTypes.js';

export interface OrderParties {
  clientId: number | null;
  driverId: number | null;
}

/** An order created, or a driver registered, in the batch has no row before it: nothing to look up. */
const CREATES_ORDER = 'OrderCreated';
const REGISTERS_DRIVER = 'DriverRegistered';

const partyKey = (orderId: number) => `parties:${orderId}`;
const driverUserKey = (driverId: number) => `driverUser:${driverId}`;

/** The ids the events name in `field`, and those whose row an event of the batch makes (`creating`). */
const named = (events: RecordedEvent[], field: string, creating: string) => {
  const ids = new Set<number>();
  const created = new Set<number>();
  for (const e of events) {
    const id = idOf(((e.data ?? {}) as Record<string, unknown>)[field]);
    if (id === null) continue;
    ids.add(id);
    if (e.type === creating) created.add(id);
  }
  return { ids, created };
};

/**
 * The ids whose row must be read: neither kept by the memory (a kept null is a row known not to exist) nor
 * made in this batch. What the memory keeps goes into `rows`.
 */
const notKept = <T>(
  { ids, created }: { ids: Set<number>; created: Set<number> },
  kept: (id: number) => T | null | undefined,
  rows: Map<number, T>,
): number[] => {
  const unknown: number[] = [];
  for (const id of ids) {
    const row = kept(id);
    if (row !== undefined && row !== null) rows.set(id, row);
    else if (row === undefined && !created.has(id)) unknown.push(id);
  }
  return unknown;
};

/**
 * What the notification rules of one batch look up (an order's parties, a driver profile's user) and what
 * its trackers change, held in memory for the whole batch: the rows the batch's events name are read in two
 * statements before the first event, the trackers change the maps as each event comes (a later event of
 * the same batch sees them), and the changes are written once at the end, one multi-row upsert per table.
 * Every upsert writes the final value of its row, so a batch applied again after a crash writes the same
 * rows.
 *
 * With the runner's memory (Projector.applyBatch), rows an earlier batch read or wrote are taken from it: a
 * batch that needs no look-up only writes.
 */
export class InboxBatch {
  private readonly parties = new Map<number, OrderParties>();
  private readonly driverUsers = new Map<number, number | null>();
  private readonly partiesChanged = new Set<number>();
  private readonly driverUsersChanged = new Set<number>();
  private readonly orderIds = new Set<number>();
  private readonly driverIds = new Set<number>();

  /** The rows the events name: their orders' parties, then the users of every driver named or found there. */
  static async load(trx: Trx, events: RecordedEvent[], memory?: BatchMemory): Promise<InboxBatch> {
    const batch = new InboxBatch();
    const orders = named(events, 'orderId', CREATES_ORDER);
    for (const id of orders.ids) batch.orderIds.add(id);
    const unknownOrders = notKept(orders, (id) => memory?.get(partyKey(id)) as OrderParties | null, batch.parties);
    if (unknownOrders.length > 0) {
      const rows = await trx
        .selectFrom('notification_order_parties')
        .select(['order_id', 'client_id', 'driver_id'])
        .where('order_id', '=', (eb) => eb.fn.any(eb.val(unknownOrders)))
        .execute();
      for (const r of rows)
        batch.parties.set(Number(r.order_id), { clientId: idOf(r.client_id), driverId: idOf(r.driver_id) });
    }
    const drivers = named(events, 'driverId', REGISTERS_DRIVER);
    for (const p of batch.parties.values()) if (p.driverId !== null) drivers.ids.add(p.driverId);
    for (const id of drivers.ids) batch.driverIds.add(id);
    const unknownDrivers = notKept(drivers, (id) => memory?.get(driverUserKey(id)) as number | null, batch.driverUsers);
    if (unknownDrivers.length > 0) {
      const rows = await trx
        .selectFrom('notification_driver_users')
        .select(['driver_id', 'user_id'])
        .where('driver_id', '=', (eb) => eb.fn.any(eb.val(unknownDrivers)))
        .execute();
      for (const r of rows) batch.driverUsers.set(Number(r.driver_id), idOf(r.user_id));
    }
    return batch;
  }

  /** Keeps the rows this batch read or leaves written (none: a row that does not exist) for the next batch. */
  remember(memory: BatchMemory): void {
    for (const id of new Set([...this.orderIds, ...this.partiesChanged]))
      memory.set(partyKey(id), this.parties.get(id) ?? null);
    for (const id of new Set([...this.driverIds, ...this.driverUsersChanged]))
      memory.set(driverUserKey(id), this.driverUsers.get(id) ?? null);
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
