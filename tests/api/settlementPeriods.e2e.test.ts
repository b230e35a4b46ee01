import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../app/composition.js';
import type { AppContext } from '../../app/context.js';
import { createHandle } from '../../commands/handle.js';
import { runCutoff } from '../../commands/settlement/cutoff.js';
import { runPayout, runReceipt } from '../../commands/settlement/payout.js';
import { walletCommands } from '../../commands/wallet/handlers.js';
import {
  PAYEES_STREAM,
  poolStream,
  receiptStream,
  type PoolEvent,
  type ReceiptIssuedData,
} from '../../domain/settlement/events.js';
import { walletStream, type LedgerEntryRecordedData } from '../../domain/wallet/events.js';
import { ManualClock } from '../../infra/clock.js';
import { startTestService, type TestService } from '../support/testService.js';
import { settlementWorld } from './settlementWorld.js';

type Closed = Extract<PoolEvent, { type: 'SettlementPeriodClosed' }>['data'];

/**
 * The service's context writing through a store that applies no read model in its appends, as an instance
 * whose projections lag would leave them: the log moves, the read models stay where they were.
 */
const withReadModelsBehind = async (ctx: AppContext): Promise<AppContext> => {
  const store = await openStore(ctx.config, ctx.pool);
  return { ...ctx, store, handle: createHandle(store) };
};

const closedPeriods = async (ctx: AppContext, driverId: number): Promise<Closed[]> =>
  (await ctx.store.readStream(poolStream(driverId)))
    .filter((e) => e.type === 'SettlementPeriodClosed')
    .map((e) => e.data as Closed);

describe('settlement periods on a running service (docs/decisions/0050)', () => {
  let t: TestService;
  const clock = new ManualClock('2026-11-23T20:00:00Z'); // 16:00 in Caracas: nothing scheduled is due
  beforeAll(async () => {
    t = await startTestService({ clock });
  });
  afterAll(() => t?.stop());

  it('each cutoff closes one period that opens from the last one’s closing; each receipt covers only the new entries', async () => {
    const ctx = t.service.ctx;
    const w = settlementWorld(ctx);
    const driverId = await w.driver('1', 1000);
    const mine = async () => (await runCutoff(ctx)).filter((r) => r.driver_id === driverId);

    expect(await mine()).toHaveLength(1);
    await w.adjust(driverId, 700);
    expect(await mine()).toHaveLength(1);
    // Nothing new: the period stays open, nothing is appended.
    expect(await mine()).toEqual([]);
    await w.adjust(driverId, 1200);
    expect(await mine()).toHaveLength(1);

    const closed = (await ctx.store.readStream(poolStream(driverId)))
      .filter((e) => e.type === 'SettlementPeriodClosed')
      .map((e) => e.data as Closed);
    expect(closed.map((c) => c.period)).toEqual([1, 2, 3]);
    expect(closed.map((c) => c.payableCents)).toEqual([1000, 700, 1200]);
    // The roll-over: every period opens from the previous closing, the first from unopened books.
    expect(closed[0].opening).toMatchObject({ throughRevision: -1, balanceCents: 0, reservedCents: 0, carried: [] });
    expect(closed[1].opening).toEqual(closed[0].closing);
    expect(closed[2].opening).toEqual(closed[1].closing);
    expect(closed[2].closing).toMatchObject({ balanceCents: 2900, reservedCents: 2900, paidOutCents: 0, carried: [] });

    // The books agree with the wallet stream, and each receipt's lines add up to its period's payable.
    const ledger = (await ctx.store.readStream(walletStream(driverId))).filter((e) => e.type === 'LedgerEntryRecorded');
    const lastEntry = ledger.at(-1)!;
    expect(closed[2].closing.throughRevision).toBe(lastEntry.streamPosition);
    expect(closed[2].closing.balanceCents).toBe((lastEntry.data as LedgerEntryRecordedData).balanceAfterCents);
    const covered = closed.flatMap((c) => c.entries.map((e) => e.entryId));
    expect(new Set(covered).size).toBe(covered.length);
    expect(covered.sort()).toEqual(ledger.map((e) => (e.data as LedgerEntryRecordedData).entryId).sort());
    for (const c of closed) {
      const [issued] = await ctx.store.readStream(receiptStream(c.receiptId));
      const data = issued.data as ReceiptIssuedData;
      expect(data.entryIds).toEqual(c.entries.map((e) => e.entryId));
      expect(data.lines.reduce((s, l) => s + l.netCents, 0)).toBe(c.payableCents);
      expect(data.totals.payableCents).toBe(c.payableCents);
    }
  });

  it('visits a driver whose wallet moved after the read models last looked (docs/decisions/0055)', async () => {
    const ctx = t.service.ctx;
    const w = settlementWorld(ctx);
    const driverId = await w.driver('2', 0);
    const behind = await withReadModelsBehind(ctx);
    await walletCommands(behind).adjust({
      driverId,
      direction: 'CREDIT',
      amountCents: 1500,
      reason: 'ajuste de prueba',
      adminId: 1,
    });
    // The wallet's read model has not seen the entry: a cutoff listing drivers from it would pass this one by.
    const seen = await ctx.db
      .selectFrom('wallet_ledger')
      .select('entry_id')
      .where('driver_id', '=', driverId)
      .execute();
    expect(seen).toEqual([]);

    const mine = (await runCutoff(ctx)).filter((r) => r.driver_id === driverId);
    expect(mine).toHaveLength(1);
    const [closed] = await closedPeriods(ctx, driverId);
    expect(closed.payableCents).toBe(1500);
    // And nothing twice: the next cutoff finds the period closed.
    expect((await runCutoff(ctx)).filter((r) => r.driver_id === driverId)).toEqual([]);
  });

  it('enrolls a driver as a payee once, however often the payout account changes', async () => {
    const ctx = t.service.ctx;
    const w = settlementWorld(ctx);
    const driverId = await w.driver('3', 0);
    await walletCommands(ctx).setPayoutAccount({
      driverId,
      userId: driverId,
      account: {
        method: 'PAGO_MOVIL',
        bankCode: '0105',
        idNumber: `V2000${driverId}3`,
        phone: '04241234567',
        accountNumber: null,
        accountType: null,
      },
      otpVerified: false,
    });
    const enrolled = (await ctx.store.readStream(PAYEES_STREAM)).filter(
      (e) => (e.data as { driverId: number }).driverId === driverId,
    );
    expect(enrolled.map((e) => e.type)).toEqual(['PayeeEnrolled']);
  });

  it('enrolls from the log a driver whose account was set where no enrollment followed (a crash in between)', async () => {
    const ctx = t.service.ctx;
    // The behind context's handler runs no reaction: the account is set and the wallet moves, the payee unenrolled.
    const unenrolled = await settlementWorld(await withReadModelsBehind(ctx)).driver('4', 800);
    const payees = async () =>
      (await ctx.store.readStream(PAYEES_STREAM)).map((e) => (e.data as { driverId: number }).driverId);
    expect(await payees()).not.toContain(unenrolled);

    await ctx.scheduler.tick();
    expect((await payees()).filter((id) => id === unenrolled)).toHaveLength(1);
    expect((await runCutoff(ctx)).filter((r) => r.driver_id === unenrolled)).toHaveLength(1);
  });

  it('sends no order again that the receipt’s stream shows acknowledged, whatever the read model still says', async () => {
    const ctx = t.service.ctx;
    const w = settlementWorld(ctx);
    const driverId = await w.driver('7', 900); // the simulator acknowledges this beneficiary's payouts only
    expect((await runCutoff(ctx)).filter((r) => r.driver_id === driverId)).toHaveLength(1);
    const [{ receiptId }] = await closedPeriods(ctx, driverId);
    // The order is created and acknowledged where the read model does not look: it still says GENERATED.
    const behind = await withReadModelsBehind(ctx);
    const at = ctx.clock.now().toISOString();
    const payoutOrderId = randomUUID();
    await runReceipt(behind, receiptId, () => ({
      type: 'CreatePayoutOrder',
      payoutOrderId,
      recordId: 900_000 + driverId,
      idempotencyKey: randomUUID(),
      provider: 'simulator',
      at,
    }));
    await runReceipt(behind, receiptId, () => ({
      type: 'RecordAttempt',
      payoutOrderId,
      synchronous: false,
      source: 'webhook',
      at,
      result: 'ACKNOWLEDGED',
      providerCode: 'PEND',
      transactionId: 'SIM-ack',
      reference: null,
      error: null,
    }));
    const row = await ctx.db
      .selectFrom('settlement_receipts')
      .select('status')
      .where('id', '=', receiptId)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('GENERATED');
    const before = (await ctx.store.readStream(receiptStream(receiptId))).length;

    const run = await runPayout(ctx);
    expect(run.filter((r) => r.driver_id === driverId)).toEqual([]);
    expect(await ctx.store.readStream(receiptStream(receiptId))).toHaveLength(before);
  });
});
