import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCutoff } from '../../commands/settlement/cutoff.js';
import { poolStream, receiptStream, type PoolEvent, type ReceiptIssuedData } from '../../domain/settlement/events.js';
import { walletStream, type LedgerEntryRecordedData } from '../../domain/wallet/events.js';
import { ManualClock } from '../../infra/clock.js';
import { startTestService, type TestService } from '../support/testService.js';
import { settlementWorld } from './settlementWorld.js';

type Closed = Extract<PoolEvent, { type: 'SettlementPeriodClosed' }>['data'];

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
});
