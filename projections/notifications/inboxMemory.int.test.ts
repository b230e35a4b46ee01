import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateOrder, OrderCommand } from '../../domain/order/commands.js';
import { orderStream } from '../../domain/order/events.js';
import { orderDecider } from '../../domain/order/order.js';
import type { BusMessage } from '../../infra/bus/port.js';
import { createDb, type Db } from '../../infra/db/database.js';
import { migrateToLatest } from '../../infra/db/migrate.js';
import type { SqlPool } from '../../infra/db/sqlPool.js';
import { eventStoreMigrations } from '../../infra/eventStore/migrations.js';
import { eventStoreFunctions } from '../../infra/eventStore/functions.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import { backends } from '../../tests/support/backends.js';
import { spec } from '../../tests/support/deciderSpec.js';
import { eventRecorder } from '../../tests/support/projectorSpec.js';
import { acceptOfferCommand, createOrderCommand, placeOfferCommand } from '../../tests/support/orderCommands.js';
import { projectionRunnerMigrations } from '../migrations.js';
import type { BatchMemory } from '../projector.js';
import { applyBatch, CheckpointMoved } from '../runner.js';
import { notificationMigrations, notificationsProjector } from './notificationsProjector.js';

/**
 * The inbox's batches with the runner's memory: what an earlier batch read or wrote (an order's parties, a
 * driver's user) is not looked up again, so a batch of order events only writes and goes as one statement,
 * and leaves the inbox and the messages that the transaction of one statement per row leaves.
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

  /** Each batch in a transaction of its own, given the memory, from an empty inbox. */
  const applied = async (memory: BatchMemory | undefined, emit: (m: BusMessage) => void = () => undefined) => {
    await emptied();
    let from = 0;
    for (const events of batches) {
      await db
        .transaction()
        .execute((trx) => applyBatch(trx, notificationsProjector, events, from, upToOf(events), emit, memory));
      from = upToOf(events);
    }
  };

  it('leaves the same rows and messages with the memory of earlier batches as without it', async () => {
    const remembered: BusMessage[] = [];
    await applied(new Map(), (m) => remembered.push(m));
    const withMemory = await inbox();

    await emptied();
    const sent: BusMessage[] = [];
    let from = 0;
    for (const events of batches) {
      await db
        .transaction()
        .execute((trx) => applyBatch(trx, notificationsProjector, events, from, upToOf(events), (m) => sent.push(m)));
      from = upToOf(events);
    }
    expect(withMemory).toEqual(await inbox());
    expect(remembered.map((m) => m.subject)).toEqual(sent.map((m) => m.subject));
    expect(sent.map((m) => m.subject).sort()).toEqual(
      ['notifications.131', 'notifications.131', 'notifications.131', 'notifications.41', 'notifications.42'].sort(),
    );
  });

  it('announces a batch once: the same batch again is refused by its checkpoint before anything is drafted', async () => {
    await emptied();
    const first = batches[0];
    await db.transaction().execute((trx) => applyBatch(trx, notificationsProjector, first, 0, upToOf(first)));
    const rows = await inbox();
    const again: BusMessage[] = [];
    await expect(
      db
        .transaction()
        .execute((trx) => applyBatch(trx, notificationsProjector, first, 0, upToOf(first), (m) => again.push(m))),
    ).rejects.toBeInstanceOf(CheckpointMoved);
    expect(again).toEqual([]);
    expect(await inbox()).toEqual(rows);
  });
});
