import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCutoff } from '../../commands/settlement/cutoff.js';
import { runPayout } from '../../commands/settlement/payout.js';
import { settlementScheduleJob } from '../../commands/settlement/schedule.js';
import { receiptStream } from '../../domain/settlement/events.js';
import { ManualClock } from '../../infra/clock.js';
import { startTestService, type TestService } from '../support/testService.js';
import { settlementWorld } from './settlementWorld.js';

describe('settlement runs survive crashes and concurrent instances', () => {
  let t: TestService;
  const clock = new ManualClock('2026-11-23T20:00:00Z'); // 16:00 in Caracas: nothing scheduled is due yet
  beforeAll(async () => {
    t = await startTestService({ clock });
  });
  afterAll(() => t?.stop());

  const receiptsOf = async (driverIds: number[]) => {
    await t.service.ctx.settle(await t.service.ctx.store.headPosition());
    return t.service.ctx.db
      .selectFrom('settlement_receipts')
      .select(['id', 'driver_id', 'receipt_number', 'status', 'state'])
      .where('driver_id', 'in', driverIds)
      .execute();
  };

  it(
    'a cutoff killed between two receipts, run again, issues each ' +
      'receipt once; a payout killed after recording its order pays once',
    async () => {
      const ctx = t.service.ctx;
      const w = settlementWorld(ctx);
      const drivers = [await w.driver('1', 1000), await w.driver('2', 2000), await w.driver('3', 3000)];

      let issues = 0;
      // Killed just after the first receipt is stored …
      await expect(
        runCutoff(
          w.crashing((events, stored) => stored && events.some((e) => e.type === 'ReceiptIssued') && ++issues === 1),
        ),
      ).rejects.toThrow('killed');
      // On PostgreSQL a few drivers run side by side: others may have finished before the kill.
      const afterFirstKill = (await receiptsOf(drivers)).length;
      expect(afterFirstKill).toBeGreaterThanOrEqual(1);
      // … then killed after the next reservation but before its receipt …
      if (afterFirstKill < 3) {
        await expect(
          runCutoff(w.crashing((events, stored) => !stored && events.some((e) => e.type === 'ReceiptIssued'))),
        ).rejects.toThrow('killed before');
        expect(await receiptsOf(drivers)).toHaveLength(afterFirstKill);
      }
      // … then run to the end.
      const issued = await runCutoff(ctx);
      expect(issued).toHaveLength(3 - afterFirstKill);
      const receipts = await receiptsOf(drivers);
      expect(receipts.map((r) => Number(r.driver_id)).sort()).toEqual(drivers);
      expect(new Set(receipts.map((r) => r.receipt_number)).size).toBe(3);
      for (const r of receipts) {
        expect(
          (await ctx.store.readStream(receiptStream(r.id))).filter((e) => e.type === 'ReceiptIssued'),
        ).toHaveLength(1);
        expect(r.state.issued!.totals.payableCents).toBe((drivers.indexOf(Number(r.driver_id)) + 1) * 1000);
      }
      expect(await runCutoff(ctx)).toEqual([]);

      // Payout killed after the first order is recorded, before the provider was called: the next run sends that order.
      const paidBefore = w.simulator().paidCount;
      await expect(
        runPayout(w.crashing((events, stored) => stored && events.some((e) => e.type === 'PayoutOrderCreated'))),
      ).rejects.toThrow('killed');
      await runPayout(ctx);
      await runPayout(ctx);
      for (const r of await receiptsOf(drivers)) {
        expect(r.status).toBe('PAID');
        expect(r.state.payoutOrders).toHaveLength(1);
      }
      expect(w.simulator().paidCount - paidBefore).toBe(3);
      const payouts = await ctx.db
        .selectFrom('wallet_ledger')
        .select(['driver_id', 'amount_cents'])
        .where('type', '=', 'PAYOUT_SENT')
        .where('driver_id', 'in', drivers)
        .execute();
      expect(payouts.map((p) => [Number(p.driver_id), Number(p.amount_cents)]).sort()).toEqual(
        drivers.map((d, i) => [d, (i + 1) * 1000]),
      );
    },
  );

  it('two schedulers firing at 18:00 (and two on-demand cutoffs at once) issue each receipt once', async () => {
    const ctx = t.service.ctx;
    const w = settlementWorld(ctx);
    const drivers = await Promise.all(['1', '2', '3', '4'].map((d, i) => w.driver(d, 600 + i)));
    clock.set('2026-11-23T22:00:00Z'); // 18:00 in Caracas
    const instanceA = settlementScheduleJob(ctx);
    const instanceB = settlementScheduleJob(ctx);
    await Promise.all([instanceA.run(clock.now()), instanceB.run(clock.now())]);
    let receipts = await receiptsOf(drivers);
    expect(receipts.map((r) => Number(r.driver_id)).sort()).toEqual(drivers);
    expect(receipts.every((r) => r.status === 'GENERATED')).toBe(true);
    // The day's cutoff is claimed: firing again that day does nothing, even with new money.
    await w.adjust(drivers[0], 700);
    await Promise.all([instanceA.run(clock.now()), instanceB.run(clock.now())]);
    expect(await receiptsOf(drivers)).toHaveLength(4);
    // On demand, two at once: the pool's expected revision lets one reserve the new entry.
    const [a, b] = await Promise.all([runCutoff(ctx), runCutoff(ctx)]);
    expect(new Set([...a, ...b].map((r) => r.driver_id))).toEqual(new Set([drivers[0]]));
    expect((await receiptsOf([drivers[0]])).length).toBe(2);
    // 19:00: both instances fire the payout; each receipt is paid once.
    clock.set('2026-11-23T23:00:00Z');
    await Promise.all([instanceA.run(clock.now()), instanceB.run(clock.now())]);
    receipts = await receiptsOf(drivers);
    expect(receipts).toHaveLength(5);
    expect(receipts.every((r) => r.status === 'PAID' && r.state.payoutOrders.length === 1)).toBe(true);
  });

  it.runIf(process.env.DATABASE_URL)(
    'two service instances on one PostgreSQL database, both ticking at 18:00, issue and pay each receipt once',
    async () => {
      const clockB = new ManualClock('2026-11-24T20:00:00Z');
      clock.set('2026-11-24T20:00:00Z');
      const shared = t as TestService & { databaseUrl?: string; busPrefix: string };
      const b = await startTestService({
        clock: clockB,
        shared: { databaseUrl: shared.databaseUrl, busPrefix: shared.busPrefix },
      });
      try {
        const w = settlementWorld(t.service.ctx);
        const drivers = await Promise.all(['1', '2', '3'].map((d) => w.driver(d, 900)));
        for (const at of ['2026-11-24T22:00:00Z', '2026-11-24T23:00:00Z']) {
          clock.set(at);
          clockB.set(at);
          await Promise.all([t.service.ctx.scheduler.tick(), b.service.ctx.scheduler.tick()]);
        }
        const receipts = await receiptsOf(drivers);
        expect(receipts.map((r) => Number(r.driver_id)).sort()).toEqual(drivers);
        expect(receipts.every((r) => r.status === 'PAID' && r.state.payoutOrders.length === 1)).toBe(true);
        const payouts = await t.service.ctx.db
          .selectFrom('wallet_ledger')
          .select('driver_id')
          .where('type', '=', 'PAYOUT_SENT')
          .where('driver_id', 'in', drivers)
          .execute();
        expect(payouts).toHaveLength(3);
      } finally {
        await b.stop();
      }
    },
  );
});
