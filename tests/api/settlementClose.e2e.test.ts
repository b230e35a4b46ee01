import { appendToStream } from '../../infra/eventStore/port.js';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// First: the service's modules extend zod with the document's fields before the routes' schemas load.
import { startTestService, type TestService } from '../support/testService.js';
import type { AppContext } from '../../app/context.js';
import { runCutoff } from '../../commands/settlement/cutoff.js';
import { balanceAsOf } from '../../api/wallet/walletReads.js';
import { walletHistory } from '../../api/admin/wallet/walletHistory.js';
import { poolStream, receiptStream, type ReceiptIssuedData } from '../../domain/settlement/events.js';
import { walletStream, type LedgerEntryRecordedData } from '../../domain/wallet/events.js';
import { ManualClock } from '../../infra/clock.js';
import type { EventStore, RecordedEvent } from '../../infra/eventStore/port.js';
import { settlementWorld } from './settlementWorld.js';

/** The service's store, counting the events each stream read returns. */
const counting = (ctx: AppContext) => {
  const read = new Map<string, number>();
  const store = new Proxy(ctx.store, {
    get(target, prop) {
      if (prop === 'readStream')
        return async (...args: Parameters<EventStore['readStream']>) => {
          const events = await target.readStream(...args);
          read.set(args[0], (read.get(args[0]) ?? 0) + events.length);
          return events;
        };
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as EventStore;
  return { ctx: { ...ctx, store }, read: (streamId: string) => read.get(streamId) ?? 0 };
};

/** A receipt as its driver's history makes it, without what differs from driver to driver. */
const figuresOf = async (ctx: AppContext, receiptId: string) => {
  const [issued] = await ctx.store.readStream(receiptStream(receiptId));
  const d = issued.data as ReceiptIssuedData;
  return {
    totals: d.totals,
    lines: d.lines.map(({ recordId: _r, orderId: _o, description: _d, ...figures }) => figures),
  };
};

describe('a period closes in the payee’s own streams (docs/decisions/0098)', () => {
  let t: TestService;
  const clock = new ManualClock('2026-11-23T20:00:00Z'); // 16:00 in Caracas: nothing scheduled is due
  beforeAll(async () => {
    t = await startTestService({ clock });
  });
  afterAll(() => t?.stop());

  /** Deliveries' ORDER_EARNING entries as the wallet records them, each carrying its order's figures. */
  const deliver = async (ctx: AppContext, driverId: number, orders: number) => {
    const stream = walletStream(driverId);
    const last = (await ctx.store.readStream(stream)).filter((e) => e.type === 'LedgerEntryRecorded').at(-1);
    let balance = last ? (last.data as LedgerEntryRecordedData).balanceAfterCents : 0;
    const at = clock.now().toISOString();
    const events = Array.from({ length: orders }, (_, i) => {
      const entryId = randomUUID();
      balance += 900;
      const orderId = driverId * 100 + i;
      const data: LedgerEntryRecordedData = {
        driverId,
        entryId,
        type: 'ORDER_EARNING',
        direction: 'CREDIT',
        amountCents: 900,
        balanceAfterCents: balance,
        orderId,
        receiptId: null,
        exchangeRateAmount: '36.50',
        description: `Ganancia del pedido #${orderId}`,
        causeId: entryId,
        adminId: null,
        at,
        orderFigures: { priceCents: 1000, commissionCents: 100, deliveredAt: at },
      };
      return { eventId: entryId, type: 'LedgerEntryRecorded', data };
    });
    await ctx.settle((await appendToStream(ctx.store, stream, events, { expectedRevision: 'any' })).position);
  };

  it('the next cutoff reads each wallet and pool from the close, and issues what a whole read issues', async () => {
    const ctx = t.service.ctx;
    const w = settlementWorld(ctx);
    // Given two drivers with the same history, each settled once
    const [a, b] = [await w.driver('1', 0), await w.driver('2', 0)];
    for (const d of [a, b]) await deliver(ctx, d, 30);
    const first = (await runCutoff(ctx)).filter((r) => r.driver_id === a || r.driver_id === b);
    expect(first).toHaveLength(2);
    for (const d of [a, b]) await deliver(ctx, d, 4);
    // and driver b's close forgotten by the index, so its next cutoff reads its streams whole
    await ctx.db.deleteFrom('period_closes').where('stream_id', '=', walletStream(b)).execute();

    // When the next cutoff runs
    const second = counting(ctx);
    clock.advance(60_000);
    const receipts = (await runCutoff(second.ctx)).filter((r) => r.driver_id === a || r.driver_id === b);

    // Then a's wallet is read from its close (the close and the four entries after it), b's whole
    expect(receipts.map((r) => r.driver_id).sort()).toEqual([a, b].sort());
    expect(second.read(walletStream(a))).toBe(5);
    // (all of b's stream but the close this cutoff appended after its read)
    const whole = (await ctx.store.readStream(walletStream(b))).length;
    expect(second.read(walletStream(b))).toBe(whole - 1);
    // the pool from its close: nothing after it, then the close itself
    expect(second.read(poolStream(a))).toBe(1);
    // And both receipts are the same, their ORDER lines priced from the figures the entries carry
    const periods = async (d: number) =>
      (await ctx.store.readStream(poolStream(d))).flatMap((e) =>
        e.type === 'SettlementPeriodClosed' ? [(e.data as { receiptId: string }).receiptId] : [],
      );
    const [ra, rb] = [(await periods(a)).at(-1)!, (await periods(b)).at(-1)!];
    const fa = await figuresOf(ctx, ra);
    expect(fa).toEqual(await figuresOf(ctx, rb));
    expect(fa.lines).toHaveLength(4);
    expect(fa.lines[0]).toMatchObject({ type: 'ORDER', subtotalCents: 1000, commissionCents: -100, netCents: 900 });
    expect(fa.totals.payableCents).toBe(3600);

    // And a cutoff with nothing new reads one event of each wallet (its close) and no pool event
    const idle = counting(ctx);
    expect((await runCutoff(idle.ctx)).filter((r) => r.driver_id === a || r.driver_id === b)).toEqual([]);
    for (const d of [a, b]) {
      expect(idle.read(walletStream(d))).toBe(1);
      expect(idle.read(poolStream(d))).toBe(0);
    }
  });

  it('keeps the chain and the replay whole: every movement still shows, the closes move no money', async () => {
    const ctx = t.service.ctx;
    const w = settlementWorld(ctx);
    const d = await w.driver('3', 0);
    await deliver(ctx, d, 3);
    expect((await runCutoff(ctx)).filter((r) => r.driver_id === d)).toHaveLength(1);
    await deliver(ctx, d, 2);
    clock.advance(60_000);
    expect((await runCutoff(ctx)).filter((r) => r.driver_id === d)).toHaveLength(1);

    const stream: RecordedEvent[] = await ctx.store.readStream(walletStream(d));
    expect(stream.filter((e) => e.type === 'WalletPeriodClosed')).toHaveLength(2);
    // Each event names the hash of the one before it, the closes included
    for (let i = 1; i < stream.length; i++) expect(stream[i].metadata.prevHash).toBe(stream[i - 1].metadata.hash);
    // The replay shows every movement, and the balance as of now (the store's clock) is the entries' sum
    const steps = await walletHistory(ctx, d);
    expect(steps.filter((s) => s.type === 'LedgerEntryRecorded')).toHaveLength(5);
    expect((await balanceAsOf(ctx, d, new Date(Date.now() + 60_000))).balanceCents).toBe(4500);
    // As of an instant before the second close, the balance the first period closed with plus what followed
    const firstClose = stream.find((e) => e.type === 'WalletPeriodClosed')!;
    expect((await balanceAsOf(ctx, d, firstClose.recordedAt)).balanceCents).toBe(2700);
    // The ledger read model holds the movements only
    const rows = await ctx.db.selectFrom('wallet_ledger').select('entry_id').where('driver_id', '=', d).execute();
    expect(rows).toHaveLength(5);
  });
});
