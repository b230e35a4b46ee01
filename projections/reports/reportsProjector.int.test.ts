import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceOrder } from '../../domain/pricing.js';
import { driversReport } from '../../api/admin/reports/driversReport.js';
import type { ReportContext } from '../../api/admin/reports/report.js';
import { createDb, type Db } from '../../infra/db/database.js';
import { migrateToLatest } from '../../infra/db/migrate.js';
import { eventStoreMigrations } from '../../infra/eventStore/migrations.js';
import { eventStoreFunctions } from '../../infra/eventStore/functions.js';
import { appendToStream, type EventStore } from '../../infra/eventStore/port.js';
import { createPostgresEventStore } from '../../infra/eventStore/postgresEventStore.js';
import { projectionRunnerMigrations } from '../migrations.js';
import { rebuildProjection } from '../rebuild.js';
import { applyBatch, applyEvents } from '../runner.js';
import type { SqlPool } from '../../infra/db/sqlPool.js';
import { reportTableMigrations } from './reportTables.js';
import { reportsProjector } from './reportsProjector.js';
import { backends } from '../../tests/support/backends.js';

/**
 * The driver report's balance and cash debt follow the wallet's LedgerEntryRecorded events (issue #10's
 * stream wallet-<driverId>, appended here directly), and the report tables, daily roll-ups included,
 * rebuilt from the log equal the ones built event by event.
 */

const AT = '2026-03-01T12:00:00.000Z';
const SETTINGS = { platformCommissionPrc: 10, clientSolidaryPrc: 1, driverSolidaryPrc: 1, platformSolidaryPrc: 0 };
const pricing8 = () =>
  priceOrder({ waterPriceCents: 5000, paymentMethod: 'PAYPROV_DI', settings: SETTINGS, creditAvailableCents: 0 });
const event = (type: string, data: Record<string, unknown>) => ({ eventId: randomUUID(), type, data });
const ledger = (
  driverId: number,
  n: number,
  direction: 'CREDIT' | 'DEBIT',
  amountCents: number,
  balanceAfterCents: number,
) =>
  event('LedgerEntryRecorded', {
    driverId,
    entryId: `${driverId}-${n}`,
    type: direction === 'DEBIT' ? 'CASH_COMMISSION_DEBT' : 'ORDER_EARNING',
    direction,
    amountCents,
    balanceAfterCents,
    recordedAt: AT,
  });

describe.each(backends)('report tables on $name', (backend) => {
  let db: Db;
  let pool: SqlPool;
  let store: EventStore;
  let close: () => Promise<void>;
  const rc = (): ReportContext => ({
    db,
    scope: { all: true },
    tz: 'America/Caracas',
    today: '2026-03-02',
    now: new Date(AT),
  });
  const drivers = async (query: Record<string, string> = {}) =>
    (await driversReport.list(rc(), driversReport.query.parse(query))) as { items: any[]; totals: any };

  beforeAll(async () => {
    const opened = await backend.open();
    pool = opened.pool;
    const { drop } = opened;
    db = createDb(pool);
    await migrateToLatest(
      db,
      { ...eventStoreMigrations, ...projectionRunnerMigrations, ...reportTableMigrations },
      eventStoreFunctions,
    );
    store = createPostgresEventStore(pool, { pollMs: 20 });
    close = async () => {
      await store.close();
      await db.destroy();
      await drop?.();
    };
    for (const [driverId, name] of [
      [7, 'Deudor'],
      [8, 'Solvente'],
    ] as const) {
      await appendToStream(
        store,
        `driver-${driverId}`,
        [
          event('DriverRegistered', {
            driverId,
            userId: driverId * 100,
            phone: `+5841400000${driverId}`,
            name,
            registeredAt: AT,
          }),
          event('DriverProfileUpdated', {
            driverId,
            plate: `AB0000${driverId}`,
            capacityLiters: 8000,
            cityId: 1,
            at: AT,
          }),
        ],
        { expectedRevision: 'no_stream' },
      );
    }
    // Driver 7 kept the cash of two orders (commission owed) and earned once online: balance −45 USD.
    await appendToStream(
      store,
      'wallet-7',
      [ledger(7, 1, 'DEBIT', 3000, -3000), ledger(7, 2, 'DEBIT', 3000, -6000), ledger(7, 3, 'CREDIT', 1500, -4500)],
      { expectedRevision: 'no_stream' },
    );
    await appendToStream(store, 'wallet-8', [ledger(8, 1, 'CREDIT', 2000, 2000)], { expectedRevision: 'no_stream' });
    // A surplus reservation (remate) by driver 8, paid online and delivered 40 minutes after it was made.
    const pricing = pricing8();
    await appendToStream(
      store,
      'order-501',
      [
        event('OrderCreated', {
          orderId: 501,
          clientId: 40,
          surplusListingId: 9,
          driverId: 8,
          cityId: 3,
          status: 'WAITING_FOR_PAYMENT',
          address: 'Av. Bolívar',
          waterType: 'POTABLE',
          paymentMethod: 'PAYPROV_DI',
          litersRequested: 3000,
          pricing,
          createdAt: AT,
        }),
        event('OrderPaid', { orderId: 501, paymentId: 1, paidAt: '2026-03-01T12:05:00.000Z' }),
        event('OrderDelivered', {
          orderId: 501,
          clientId: 40,
          driverId: 8,
          litersRequested: 3000,
          actualLiters: 3000,
          paymentMethod: 'PAYPROV_DI',
          pricing,
          isValidPromotion: false,
          deliveredAt: '2026-03-01T12:40:00.000Z',
        }),
      ],
      { expectedRevision: 'no_stream' },
    );
    // A new settlement timezone re-buckets the daily roll-ups: a rebuild must do the same at the same point.
    await appendToStream(
      store,
      'settlement-config',
      [
        event('SettlementConfigChanged', {
          oldValues: { timezone: 'America/Caracas' },
          newValues: { timezone: '+02:00' },
          adminId: 1,
          at: AT,
        }),
      ],
      { expectedRevision: 'any' },
    );
    // Applied as the runner does, one batch per read.
    const head = await store.headPosition();
    while ((await store.readAll(head - 1, 1)).length === 0) await store.waitForAppend(20);
    const events = await store.readAll(0, 1000);
    await db.transaction().execute((trx) => applyEvents(trx, reportsProjector, events));
  });
  afterAll(async () => {
    await close?.();
  });

  it('keeps each driver’s balance from the wallet and derives cash debt as max(0, −balance)', async () => {
    const { items, totals } = await drivers({ sort: 'cash_debt_usd' });
    expect(items.map((i) => [i.driver_id, i.balance_usd, i.cash_debt_usd])).toEqual([
      [7, -45, 45],
      [8, 20, 0],
    ]);
    expect(totals.deuda_cash_total_usd).toBe(45);
    expect((await drivers({ with_cash_debt: 'true' })).items.map((i) => i.driver_id)).toEqual([7]);
    expect((await drivers({ with_cash_debt: 'false' })).items.map((i) => i.driver_id)).toEqual([8]);
    expect((await drivers({ min_balance: '20' })).items.map((i) => i.driver_id)).toEqual([8]);
    expect((await drivers({ min_balance: '20.01' })).items).toEqual([]);
  });

  it('records a surplus reservation as a remate with its driver from the start and no acceptance time', async () => {
    const row = await db.selectFrom('report_orders').selectAll().where('id', '=', 501).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      origin: 'remate',
      city_id: 3,
      driver_id: 8,
      status: 'DELIVERED',
      payment_status: 'confirmed',
      charged_before: true,
      final_price_cents: 5000,
      acceptance_minutes: null,
      delivery_minutes: 40,
      liters_diff: 0,
    });
    const driver = await db
      .selectFrom('report_drivers')
      .selectAll()
      .where('driver_id', '=', 8)
      .executeTakeFirstOrThrow();
    expect(driver).toMatchObject({
      deliveries: 1,
      gross_earnings_cents: pricing8().driverGrossCents,
      commission_paid_cents: pricing8().platformRevenueCents,
      solidary_cents: pricing8().driverSolidaryCents,
    });
  });

  const snapshot = async () => ({
    drivers: await db.selectFrom('report_drivers').selectAll().orderBy('driver_id').execute(),
    orders: await db.selectFrom('report_orders').selectAll().orderBy('id').execute(),
    daily: await db.selectFrom('report_daily').selectAll().orderBy(['day', 'city_id', 'water_type']).execute(),
    dailyDrivers: await db
      .selectFrom('report_daily_drivers')
      .selectAll()
      .orderBy(['day', 'city_id', 'driver_id', 'water_type'])
      .execute(),
    running: await db
      .selectFrom('report_driver_running')
      .selectAll()
      .orderBy(['driver_id', 'city_key', 'day'])
      .execute(),
    driverCities: await db.selectFrom('report_driver_cities').selectAll().orderBy(['driver_id', 'city_key']).execute(),
    calendar: await db.selectFrom('report_calendar').selectAll().execute(),
  });

  it('rebuilds from the log into the same rows', async () => {
    const before = await snapshot();
    await rebuildProjection({ db, store }, reportsProjector);
    expect(await snapshot()).toEqual(before);
    expect(before.drivers.map((d) => Number(d.balance_cents))).toEqual([-4500, 2000]);
    // Order 501 (12:00 UTC) is a day of the +02:00 calendar, counted once as delivered.
    expect(before.calendar).toEqual([{ id: true, timezone: '+02:00', pg_zone: '-02:00' }]);
    expect(before.dailyDrivers).toMatchObject([
      { driver_id: 8, city_id: 3, orders: 1, delivered: 1, delivery_tenths: 400 },
    ]);
    expect(before.daily).toHaveLength(1);
    expect(before.running).toMatchObject([{ driver_id: 8, city_key: 3, orders: 1, delivered: 1 }]);
  });

  it('moves the roll-ups to the same figures whether a batch holds every event or one', async () => {
    const whole = await snapshot();
    await db.transaction().execute(async (trx) => {
      for (const t of reportsProjector.tables) await trx.deleteFrom(t as never).execute();
    });
    for (const e of await store.readAll(0, 1000))
      await db.transaction().execute((trx) => applyEvents(trx, reportsProjector, [e]));
    expect(await snapshot()).toEqual(whole);
  });

  const emptied = () =>
    db.transaction().execute(async (trx) => {
      for (const t of reportsProjector.tables) await trx.deleteFrom(t as never).execute();
      await trx.deleteFrom('projection_checkpoints').execute();
    });

  it('applies nothing of a batch when a rebuild moved the checkpoint past where it starts', async () => {
    const whole = await snapshot();
    const events = await store.readAll(0, 1000);
    const head = events.at(-1)!.globalPosition;
    await emptied();
    await db.insertInto('projection_checkpoints').values({ name: 'reports', position: head }).execute();
    const share = { projector: reportsProjector, from: 0, events };
    expect(await db.transaction().execute((trx) => applyBatch(trx, [share], head))).toEqual([reportsProjector]);
    expect((await snapshot()).orders).toEqual([]);
    await emptied();
    await db.transaction().execute((trx) => applyEvents(trx, reportsProjector, events));
    expect(await snapshot()).toEqual(whole);
  });
});
