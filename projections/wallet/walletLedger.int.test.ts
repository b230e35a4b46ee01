import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandle } from '../../commands/handle.js';
import { payoutEntryId, runWallet, walletCommands } from '../../commands/wallet/handlers.js';
import { LEDGER_TYPES } from '../../domain/wallet/events.js';
import { createInProcessBus } from '../../infra/bus/inProcessBus.js';
import type { BusMessage } from '../../infra/bus/port.js';
import { ManualClock } from '../../infra/clock.js';
import { createDb, type Db } from '../../infra/db/database.js';
import { migrateToLatest } from '../../infra/db/migrate.js';
import { eventStoreMigrations } from '../../infra/eventStore/migrations.js';
import { eventStoreFunctions } from '../../infra/eventStore/functions.js';
import { createPostgresEventStore } from '../../infra/eventStore/postgresEventStore.js';
import { createLogger } from '../../infra/logger.js';
import { projectionRunnerMigrations } from '../migrations.js';
import { rebuildProjection } from '../rebuild.js';
import { ProjectionRunner } from '../runner.js';
import { walletLedgerProjector, walletMigrations } from './walletLedger.js';
import { backends } from '../../tests/support/backends.js';

/**
 * The wallet read models against every database the service runs on: built live by the runner while
 * wallets take entries, then rebuilt from the log with the rebuild mechanism (projections/rebuild.ts):
 * both are equal row for row, and the ledger explains every balance.
 */

const snapshot = async (db: Db) => ({
  wallets: await db.selectFrom('wallets').selectAll().orderBy('driver_id').execute(),
  ledger: await db.selectFrom('wallet_ledger').selectAll().orderBy('global_position').execute(),
  accounts: await db.selectFrom('wallet_payout_accounts').selectAll().orderBy('driver_id').execute(),
});

/** A seeded PRNG (mulberry32): the same wallets on every run. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
};

describe.each(backends)('wallet ledger projection on $name', (backend) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('a rebuild from the log equals the live read models row for row; Σ credits − debits = balance', async () => {
    const { pool, drop } = await backend.open();
    const db = createDb(pool);
    await migrateToLatest(
      db,
      { ...eventStoreMigrations, ...projectionRunnerMigrations, ...walletMigrations },
      eventStoreFunctions,
    );
    const store = createPostgresEventStore(pool, { pollMs: 20 });
    const bus = createInProcessBus();
    const published: BusMessage[] = [];
    bus.subscribe('events.wallet.>', (m) => published.push(m));
    const runner = new ProjectionRunner({
      db,
      pool,
      store,
      bus,
      logger: createLogger('silent'),
      projectors: [walletLedgerProjector],
      pollMs: 20,
      batchSize: 50,
    });
    cleanups.push(async () => {
      await runner.stop();
      await store.close();
      await db.destroy();
      await drop?.();
    });
    await runner.start();

    const clock = new ManualClock();
    const walletCtx = { handle: createHandle(store), clock, store };
    const wallet = walletCommands(walletCtx);
    const random = prng(7);
    const drivers = [1, 2, 3, 4];
    let head = 0;
    for (const d of drivers) head = Math.max(head, (await wallet.open(d)).position);
    for (let i = 0; i < 150; i++) {
      clock.advance(60_000);
      const driverId = drivers[Math.floor(random() * drivers.length)];
      const amountCents = 1 + Math.floor(random() * 50_000);
      const pick = random();
      const r =
        pick < 0.1
          ? await runWallet(walletCtx, driverId, {
              type: 'RecordPayout',
              driverId,
              entryId: payoutEntryId(`r-${driverId}-${i % 5}`),
              receiptId: `r-${driverId}-${i % 5}`,
              receiptRecordId: driverId * 10 + (i % 5),
              receiptNumber: `2026-11-${driverId}${i % 5}`,
              amountCents,
            })
          : pick < 0.2
            ? await wallet.adjust({
                driverId,
                direction: random() < 0.5 ? 'CREDIT' : 'DEBIT',
                amountCents,
                reason: 'Ajuste de prueba',
                adminId: 1,
              })
            : pick < 0.25
              ? await wallet.setPayoutAccount({
                  driverId,
                  userId: driverId * 10,
                  account: {
                    method: 'BANK_TRANSFER',
                    bankCode: null,
                    idNumber: null,
                    phone: null,
                    accountNumber: `acc-${i}`,
                    accountType: 'ahorro',
                  },
                  otpVerified: false,
                })
              : await runWallet(walletCtx, driverId, {
                  type: 'RecordEntry',
                  driverId,
                  entryId: randomUUID(),
                  ledgerType: LEDGER_TYPES[Math.floor(random() * 3)],
                  direction: random() < 0.7 ? 'CREDIT' : 'DEBIT',
                  amountCents,
                  orderId: i,
                  receiptId: null,
                  exchangeRateAmount: '36.50',
                  description: `Pedido #${i}`,
                  causeId: `delivery-${i}`,
                });
      head = Math.max(head, r.position);
    }
    expect(await runner.waitFor(head, 20_000)).toBe(true);
    const live = await snapshot(db);
    expect(live.ledger.length).toBeGreaterThan(100);
    // A receipt is paid out once, however often its payout is recorded.
    const payouts = live.ledger.filter((e) => e.type === 'PAYOUT_SENT').map((e) => e.receipt_id);
    expect(payouts.length).toBeGreaterThan(0);
    expect(new Set(payouts).size).toBe(payouts.length);

    for (const w of live.wallets) {
      const entries = live.ledger.filter((e) => e.driver_id === w.driver_id);
      const sum = entries.reduce((acc, e) => acc + (e.direction === 'CREDIT' ? e.amount_cents : -e.amount_cents), 0);
      expect(w.balance_cents).toBe(sum);
      expect(entries.at(-1)?.balance_after_cents ?? 0).toBe(sum);
    }

    // Every entry was announced on the bus once its batch committed, with its running balance.
    await bus.flush();
    const announced = published
      .filter((m) => m.subject === 'events.wallet.LedgerEntryRecorded')
      .map((m) => m.data as { entryId: string; balanceAfterCents: number });
    expect(new Map(announced.map((m) => [m.entryId, m.balanceAfterCents]))).toEqual(
      new Map(live.ledger.map((e) => [e.entry_id, e.balance_after_cents])),
    );

    const result = await rebuildProjection({ db, store, batchSize: 40 }, walletLedgerProjector);
    expect(result.position).toBeGreaterThanOrEqual(head);
    expect(await snapshot(db)).toEqual(live);
  }, 60_000);
});
