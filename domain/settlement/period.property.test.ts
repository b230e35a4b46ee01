import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Books, PoolEvent } from './events.js';
import { settleableEntries, SETTLEABLE_TYPES } from './issue.js';
import { readFrom, type WalletEntry } from './period.js';
import { decidePool, evolvePool, initialPool, type PoolState } from './pool.js';

const at = '2026-11-23T22:00:00.000Z';
const MIN = 1_000;
const signed = (e: WalletEntry) => (e.direction === 'CREDIT' ? e.amountCents : -e.amountCents);

const step = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('entry' as const),
      type: fc.constantFrom(...SETTLEABLE_TYPES),
      // Mostly credits, as a working driver's ledger: enough reach the minimum for periods to roll over.
      direction: fc.constantFrom('CREDIT' as const, 'CREDIT' as const, 'CREDIT' as const, 'DEBIT' as const),
      amountCents: fc.integer({ min: 1, max: 5_000 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cutoff' as const), hold: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pay' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('annul' as const), pick: fc.nat() }) },
);

interface Receipt {
  id: string;
  entryIds: string[];
  payableCents: number;
  status: 'live' | 'paid' | 'annulled';
}

/** The wallet, the pool and the receipts, driven through the pool's decider; the model keeps the whole history. */
const world = () => {
  const wallet: WalletEntry[] = [];
  const receipts: Receipt[] = [];
  const closes: Extract<PoolEvent, { type: 'SettlementPeriodClosed' }>['data'][] = [];
  let pool: PoolState = initialPool;
  const apply = (events: PoolEvent[]) => {
    pool = events.reduce(evolvePool, pool);
    return events;
  };
  const record = (e: Omit<WalletEntry, 'revision' | 'balanceAfterCents' | 'entryId'>) => {
    const revision = wallet.length;
    const balance =
      (wallet.at(-1)?.balanceAfterCents ?? 0) + (e.direction === 'CREDIT' ? e.amountCents : -e.amountCents);
    wallet.push({ ...e, entryId: `e${revision}`, revision, balanceAfterCents: balance });
  };
  return { wallet, receipts, closes, apply, record, pool: () => pool };
};

const entryOf = (type: string, direction: 'CREDIT' | 'DEBIT', amountCents: number) => ({
  type,
  direction,
  amountCents,
  orderId: null,
  exchangeRateAmount: null,
  description: type,
  at,
  order: null,
});

/** What the books must say, from the whole history (what a cutoff without periods would have to read). */
const expectedBooks = (w: ReturnType<typeof world>, books: Books) => {
  const through = w.wallet.filter((e) => e.revision <= books.throughRevision);
  const covered = new Set(w.receipts.filter((r) => r.status !== 'annulled').flatMap((r) => r.entryIds));
  return {
    balanceCents: through.at(-1)?.balanceAfterCents ?? 0,
    paidOutCents: through.filter((e) => e.type === 'PAYOUT_SENT').reduce((s, e) => s + e.amountCents, 0),
    reservedCents: w.receipts.filter((r) => r.status !== 'annulled').reduce((s, r) => s + r.payableCents, 0),
    carried: through
      .filter((e) => SETTLEABLE_TYPES.includes(e.type) && !covered.has(e.entryId))
      .map((e) => e.entryId)
      .sort(),
  };
};

describe('settlement periods (property)', () => {
  it(
    'each period opens from the last closing carried forward, and settles exactly what a decision over the ' +
      'whole history would: no entry twice, none lost, every receipt adding up',
    () => {
      let periodsSeen = 0;
      let longestRun = 0;
      fc.assert(
        fc.property(fc.array(step, { minLength: 10, maxLength: 150 }), (steps) => {
          const w = world();
          let lastClosing: Books | null = null;
          steps.forEach((s, i) => {
            if (s.kind === 'entry') w.record(entryOf(s.type, s.direction, s.amountCents));
            else if (s.kind === 'pay' || s.kind === 'annul') {
              const live = w.receipts.filter((r) => r.status === 'live');
              if (live.length === 0) return;
              const r = live[s.pick % live.length];
              if (s.kind === 'pay') {
                r.status = 'paid';
                w.record({ ...entryOf('PAYOUT_SENT', 'DEBIT', r.payableCents) });
              } else {
                r.status = 'annulled';
                w.apply(
                  decidePool(
                    {
                      type: 'ReleaseEntries',
                      driverId: 1,
                      receiptId: r.id,
                      entryIds: r.entryIds,
                      payableCents: r.payableCents,
                      at,
                    },
                    w.pool(),
                  ),
                );
                lastClosing = null;
              }
            } else {
              const opening = w.pool().opening;
              const read = w.wallet.filter((e) => e.revision >= readFrom(opening));
              // A few open entries are held back this time; they must come back in a later period.
              const held = new Set(
                read.filter((e) => e.revision % 4 < s.hold && e.revision % 3 === 0).map((e) => e.entryId),
              );
              // What a decision over the whole history settles, to compare with the period's.
              const covered = new Set(w.receipts.filter((r) => r.status !== 'annulled').flatMap((r) => r.entryIds));
              const balanceCents = w.wallet.at(-1)?.balanceAfterCents ?? 0;
              const paidOut = w.wallet.filter((e) => e.type === 'PAYOUT_SENT').reduce((t, e) => t + e.amountCents, 0);
              const reserved = w.receipts
                .filter((r) => r.status !== 'annulled')
                .reduce((t, r) => t + r.payableCents, 0);
              const whole = settleableEntries(
                w.wallet.filter((e) => !held.has(e.entryId)),
                {
                  coveredEntryIds: covered,
                  balanceCents,
                  pendingPayoutCents: reserved - paidOut,
                  minBalanceCents: MIN,
                },
              );
              const receiptId = `r${i}`;
              const events = w.apply(
                decidePool(
                  {
                    type: 'CloseSettlementPeriod',
                    driverId: 1,
                    receiptId,
                    read,
                    heldEntryIds: held,
                    minBalanceCents: MIN,
                    at,
                  },
                  w.pool(),
                ),
              );
              const closed = events.find((e) => e.type === 'SettlementPeriodClosed');
              expect(closed?.data.entries.map((e) => e.entryId) ?? []).toEqual(whole.map((e) => e.entryId));
              if (!closed) return;
              const { data } = closed;
              // The roll-over: this period opened from the last one's closing, unless an annulment returned entries since.
              if (lastClosing) expect(data.opening).toEqual(lastClosing);
              expect(data.opening).toEqual(opening);
              expect(data.period).toBe(w.closes.length + 1);
              lastClosing = data.closing;
              periodsSeen++;
              const settled = w.wallet.filter((e) => data.entries.some((x) => x.entryId === e.entryId));
              // The receipt's payable is what its entries add up to.
              expect(data.payableCents).toBe(settled.reduce((t, e) => t + signed(e), 0));
              w.closes.push(data);
              w.receipts.push({
                id: receiptId,
                entryIds: settled.map((e) => e.entryId),
                payableCents: data.payableCents,
                status: 'live',
              });
            }
            // After every step: the books say what the whole history says, and no entry is in two live receipts.
            const books = w.pool().opening;
            const expected = expectedBooks(w, books);
            expect({ ...books, carried: books.carried.map((c) => c.entryId).sort() }).toEqual({
              throughRevision: books.throughRevision,
              ...expected,
            });
            const covering = w.receipts.filter((r) => r.status !== 'annulled').flatMap((r) => r.entryIds);
            expect(new Set(covering).size).toBe(covering.length);
          });
          longestRun = Math.max(longestRun, w.closes.length);
        }),
        { seed: 50, numRuns: 300 },
      );
      // The sequences do roll over: many periods closed, several in one run.
      expect(periodsSeen).toBeGreaterThan(400);
      expect(longestRun).toBeGreaterThanOrEqual(5);
    },
  );
});
