import { describe, expect, it } from 'vitest';
import { fold } from '../decider.js';
import type { PoolEvent } from './events.js';
import type { WalletEntry } from './period.js';
import { readFrom } from './period.js';
import { decidePool, evolvePool, initialPool, poolFromClose, type PoolCommand } from './pool.js';

const at = '2026-11-23T22:00:00.000Z';
const reserved = (receiptId: string, entryIds: string[]): PoolEvent => ({
  type: 'EntriesReserved',
  data: { driverId: 1, receiptId, entryIds, payableCents: 100, at },
});

describe('settlement pool', () => {
  it('a release of a receipt reserved before periods returns its entries to the pool, once', () => {
    const s = fold(evolvePool, initialPool, [
      reserved('r1', ['a']),
      { type: 'EntriesReleased', data: { driverId: 1, receiptId: 'r1', at } },
    ]);
    expect(s.coveredBy).toEqual({});
    expect(s.opening.reservedCents).toBe(0);
    expect(
      decidePool({ type: 'ReleaseEntries', driverId: 1, receiptId: 'r1', entryIds: ['a'], payableCents: 100, at }, s),
    ).toEqual([]);
  });

  it('a release of a period receipt returns its entries and payable to the books', () => {
    const s = fold(evolvePool, initialPool, []);
    const events = decidePool(
      { type: 'ReleaseEntries', driverId: 1, receiptId: 'p1', entryIds: ['a', 'b'], payableCents: 300, at },
      s,
    );
    expect(events).toEqual([
      {
        type: 'EntriesReturned',
        data: {
          driverId: 1,
          receiptId: 'p1',
          entries: [
            { entryId: 'a', revision: 0 },
            { entryId: 'b', revision: 0 },
          ],
          payableCents: 300,
          at,
        },
      },
    ]);
    expect(fold(evolvePool, s, events).opening).toMatchObject({
      reservedCents: -300,
      carried: [
        { entryId: 'a', revision: 0 },
        { entryId: 'b', revision: 0 },
      ],
    });
  });

  describe('periods over a stream written before them (docs/decisions/0050)', () => {
    /** A wallet of credits of 1,000 cents each, entry `e<revision>`. */
    const wallet = (n: number): WalletEntry[] =>
      Array.from({ length: n }, (_, revision) => ({
        entryId: `e${revision}`,
        revision,
        balanceAfterCents: 1_000 * (revision + 1),
        type: 'ORDER_EARNING',
        direction: 'CREDIT' as const,
        amountCents: 1_000,
        orderId: null,
        exchangeRateAmount: null,
        description: 'x',
        at,
        order: null,
      }));
    const close = (receiptId: string, read: WalletEntry[]): PoolCommand => ({
      type: 'CloseSettlementPeriod',
      driverId: 1,
      receiptId,
      read,
      heldEntryIds: new Set(),
      minBalanceCents: 100,
      at,
    });

    it('an old stream evolves with unopened books; its first period reads from the start and leaves out what old receipts cover', () => {
      // Given a pool with one receipt reserved before periods existed (e0, e1: 2,000 cents)
      const given = fold(evolvePool, initialPool, [reserved('old', ['e0', 'e1'])]);
      expect(given.period).toBe(0);
      expect(given.opening).toEqual({
        throughRevision: -1,
        balanceCents: 0,
        reservedCents: 100,
        paidOutCents: 0,
        carried: [],
      });
      expect(readFrom(given.opening)).toBe(0);
      // When a cutoff closes the first period over the whole wallet
      const [event] = decidePool(close('p1', wallet(4)), given);
      // Then it settles only e2 and e3, and the books close through the last entry
      expect(event.type).toBe('SettlementPeriodClosed');
      if (event.type !== 'SettlementPeriodClosed') return;
      expect(event.data.entries).toEqual([
        { entryId: 'e2', revision: 2 },
        { entryId: 'e3', revision: 3 },
      ]);
      expect(event.data.closing).toEqual({
        throughRevision: 3,
        balanceCents: 4_000,
        reservedCents: 2_100,
        paidOutCents: 0,
        carried: [],
      });
      const after = evolvePool(given, event);
      expect(after).toMatchObject({ period: 1, coveredBy: {}, opening: event.data.closing });
      // And the next period reads after it, and finds nothing new to settle
      expect(readFrom(after.opening)).toBe(4);
      expect(decidePool(close('p2', []), after)).toEqual([]);
    });

    it('an old receipt annulled after the first period returns its entries to the books, read again from the start', () => {
      const opened = fold(evolvePool, initialPool, [reserved('old', ['e0', 'e1'])]);
      const afterFirst = fold(evolvePool, opened, decidePool(close('p1', wallet(4)), opened));
      // When the old receipt is released (its event carries only the receipt id)
      const released = evolvePool(afterFirst, { type: 'EntriesReleased', data: { driverId: 1, receiptId: 'old', at } });
      expect(released.opening.carried).toEqual([
        { entryId: 'e0', revision: 0 },
        { entryId: 'e1', revision: 0 },
      ]);
      expect(released.opening.reservedCents).toBe(2_000);
      // Then the next period reads from the start and settles them, once
      expect(readFrom(released.opening)).toBe(0);
      const [event] = decidePool(close('p2', wallet(4)), released);
      expect(event.type === 'SettlementPeriodClosed' && event.data.entries.map((e) => e.entryId)).toEqual(['e0', 'e1']);
      const settled = evolvePool(released, event);
      expect(settled.opening).toMatchObject({ throughRevision: 3, carried: [], reservedCents: 4_000 });
      expect(decidePool(close('p3', wallet(4).slice(4)), settled)).toEqual([]);
    });

    it('refuses to decide on a read that misses an entry the books carry', () => {
      const opened = fold(evolvePool, initialPool, [reserved('old', ['e0', 'e1'])]);
      const afterFirst = fold(evolvePool, opened, decidePool(close('p1', wallet(4)), opened));
      const released = evolvePool(afterFirst, { type: 'EntriesReleased', data: { driverId: 1, receiptId: 'old', at } });
      expect(() => decidePool(close('p2', wallet(4).slice(2)), released)).toThrow(/misses entries/);
    });
  });

  describe('read from its last close (docs/decisions/0098)', () => {
    const entry = (revision: number): WalletEntry => ({
      entryId: `e${revision}`,
      revision,
      balanceAfterCents: 1_000 * (revision + 1),
      type: 'ORDER_EARNING',
      direction: 'CREDIT',
      amountCents: 1_000,
      orderId: null,
      exchangeRateAmount: null,
      description: 'x',
      at,
      order: null,
    });
    const closing = (receiptId: string, read: WalletEntry[]): PoolCommand => ({
      type: 'CloseSettlementPeriod',
      driverId: 1,
      receiptId,
      read,
      heldEntryIds: new Set(),
      minBalanceCents: 100,
      at,
    });
    /** The stream's events, each decided on the state the ones before leave. */
    const stream = (...steps: (PoolEvent | PoolCommand)[]): PoolEvent[] => {
      const out: PoolEvent[] = [];
      for (const step of steps) {
        const s = fold(evolvePool, initialPool, out);
        out.push(...('data' in step ? [step] : decidePool(step, s)));
      }
      return out;
    };

    it('is the pool read from the start, its version counting every event, its old receipts kept', () => {
      // Given a receipt reserved before periods, two periods closed, and a release after the last close
      const events = stream(
        reserved('old', ['e0']),
        closing('p1', [0, 1, 2].map(entry)),
        closing('p2', [3, 4].map(entry)),
        { type: 'EntriesReleased', data: { driverId: 1, receiptId: 'old', at } },
      );
      const lastClose = events.map((e) => e.type).lastIndexOf('SettlementPeriodClosed');
      expect(lastClose).toBe(2);
      // When the pool is read from its last close on
      const fromClose = poolFromClose(lastClose, events.slice(lastClose));
      // Then it is the pool read from the start
      expect(fromClose).toEqual(fold(evolvePool, initialPool, events));
      expect(fromClose?.version).toBe(4);
      // And a second release of the old receipt returns nothing again
      expect(
        decidePool(
          { type: 'ReleaseEntries', driverId: 1, receiptId: 'old', entryIds: ['e0'], payableCents: 100, at },
          fromClose!,
        ),
      ).toEqual([]);
    });

    it('is not taken from a read that does not start at a close carrying the whole pool', () => {
      const events = stream(closing('p1', [0].map(entry)));
      const close = events[0];
      if (close.type !== 'SettlementPeriodClosed') throw new Error('expected a close');
      const { reservations: _r, ...written } = close.data;
      expect(poolFromClose(0, [{ type: 'SettlementPeriodClosed', data: written }])).toBeNull();
      expect(poolFromClose(1, [reserved('x', ['e9'])])).toBeNull();
      expect(poolFromClose(1, [])).toBeNull();
    });
  });
});
