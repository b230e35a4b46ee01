import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateOrder, OrderCommand } from '../../domain/order/commands.js';
import { orderStream } from '../../domain/order/events.js';
import { orderDecider } from '../../domain/order/order.js';
import type { BusMessage } from '../../infra/bus/port.js';
import { createDb, type Db } from '../../infra/db/database.js';
import { migrateToLatest } from '../../infra/db/migrate.js';
import { onOneConnection, type SqlPool } from '../../infra/db/sqlPool.js';
import { eventStoreMigrations } from '../../infra/eventStore/migrations.js';
import { eventStoreFunctions } from '../../infra/eventStore/functions.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import { backends } from '../../tests/support/backends.js';
import { spec } from '../../tests/support/deciderSpec.js';
import { eventRecorder } from '../../tests/support/projectorSpec.js';
import { acceptOfferCommand, createOrderCommand, placeOfferCommand } from '../../tests/support/orderCommands.js';
import { projectionRunnerMigrations } from '../migrations.js';
import type { BatchMemory } from '../projector.js';
import { applyBatch } from '../runner.js';
import { notificationMigrations, notificationsProjector } from './notificationsProjector.js';

/**
 * The inbox's batches with the runner's memory: what an earlier batch read or wrote (an order's parties, a
 * driver's user) is not looked up again, so a batch of order events only writes, and leaves the inbox and the
 * messages that batches without the memory leave.
 */

const at = (minutes: number) => new Date(Date.parse('2026-01-01T12:00:00Z') + minutes * 60_000);
const create = (orderId: number, clientId: number): CreateOrder =>
  createOrderCommand(orderId, at(0), {
    clientId,
    latitude: 10.4806,
    longitude: -66.9036,
    litersRequested: 2000,
    waterPriceCents: 2500,
    deliveryPin: '4821',
    cityId: 1,
  });

const record = eventRecorder();

const orderEvents = (commands: OrderCommand[]) => spec(orderDecider).history(commands);
const driver = record('driver-31', [
  {
    type: 'DriverRegistered',
    data: { driverId: 31, userId: 131, phone: '+584140000031', name: 'Ana', registeredAt: at(0).toISOString() },
  },
  { type: 'DriverApproved', data: { driverId: 31, adminId: 1, at: at(0).toISOString() } },
]);
const [created, offered, accepted] = orderEvents([
  create(31, 41),
  placeOfferCommand(3100, 31, at(1), { driverRemainingLiters: 8000 }),
  acceptOfferCommand(3100, at(2), { clientId: 41, driverRemainingLiters: 8000 }),
]).map((e) => [e]);
const order31 = record(orderStream(31), [...created, ...offered, ...accepted]);
const order32 = record(
  orderStream(32),
  orderEvents([
    create(32, 42),
    placeOfferCommand(3200, 31, at(1), { driverRemainingLiters: 8000 }),
    acceptOfferCommand(3200, at(2), { clientId: 42, driverRemainingLiters: 8000 }),
  ]),
);
/** The driver and a new order; the order's bid and acceptance; a second order of the same driver. */
const batches = [[...driver, order31[0]], order31.slice(1), order32];

describe.each(backends)("the inbox's batches with the runner's memory ($name)", (backend) => {
  let pool: SqlPool;
  let db: Db;
  let drop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ pool, drop } = await backend.open());
    db = createDb(pool);
    await migrateToLatest(
      db,
      { ...eventStoreMigrations, ...projectionRunnerMigrations, ...notificationMigrations },
      eventStoreFunctions,
    );
  });
  afterAll(async () => {
    await db?.destroy();
    await drop?.();
  });

  const emptied = () =>
    db.transaction().execute(async (trx) => {
      for (const table of notificationsProjector.tables) await trx.deleteFrom(table as never).execute();
      await trx.deleteFrom('projection_checkpoints').execute();
    });
  const inbox = () =>
    Promise.all(
      notificationsProjector.tables.map((table) =>
        db
          .selectFrom(table as never)
          .selectAll()
          .execute(),
      ),
    ).then((tables) => tables.map((rows) => rows.map((r) => JSON.stringify(r)).sort()));
  const upToOf = (events: RecordedEvent[]) => events.at(-1)!.globalPosition;

  /** Applies the batches one after the other from an empty inbox; per batch, how many statements read. */
  const applied = async (memory: BatchMemory | undefined, emit: (m: BusMessage) => void = () => undefined) => {
    await emptied();
    const client = await pool.connect();
    let reads = 0;
    const counted = createDb(
      onOneConnection(
        {
          query: (text, params) => {
            if (/^\s*select\b/i.test(text)) reads += 1;
            return client.query(text, params);
          },
          release: () => undefined,
          broken: false,
        },
        pool.kind,
      ),
    );
    const readsPerBatch: number[] = [];
    try {
      let from = 0;
      for (const events of batches) {
        reads = 0;
        const share = { projector: notificationsProjector, from, events, emit, memory };
        expect(await counted.transaction().execute((trx) => applyBatch(trx, [share], upToOf(events)))).toEqual([]);
        readsPerBatch.push(reads);
        from = upToOf(events);
      }
    } finally {
      client.release();
    }
    return readsPerBatch;
  };

  it('reads nothing for a batch once the rows it needs are in memory, and leaves the same rows and messages', async () => {
    const sent: BusMessage[] = [];
    // Without the memory, the bid's and the second order's batches look up the client and the driver's user.
    const without = await applied(undefined, (m) => sent.push(m));
    expect(without.map((n) => n > 0)).toEqual([false, true, true]);
    const withoutMemory = await inbox();
    const remembered: BusMessage[] = [];
    expect(await applied(new Map(), (m) => remembered.push(m))).toEqual([0, 0, 0]);
    expect(await inbox()).toEqual(withoutMemory);
    expect(remembered.map((m) => m.subject)).toEqual(sent.map((m) => m.subject));
    expect(sent.map((m) => m.subject).sort()).toEqual(
      ['notifications.131', 'notifications.131', 'notifications.131', 'notifications.41', 'notifications.42'].sort(),
    );
  });

  it('announces a batch once: the same batch again is refused by its checkpoint before anything is drafted', async () => {
    await emptied();
    const first = batches[0];
    const share = { projector: notificationsProjector, from: 0, events: first };
    await db.transaction().execute((trx) => applyBatch(trx, [share], upToOf(first)));
    const rows = await inbox();
    const again: BusMessage[] = [];
    const left = await db
      .transaction()
      .execute((trx) => applyBatch(trx, [{ ...share, emit: (m) => again.push(m), memory: new Map() }], upToOf(first)));
    expect(left).toEqual([notificationsProjector]);
    expect(again).toEqual([]);
    expect(await inbox()).toEqual(rows);
  });
});
