import type { Books } from './events.js';
import { settleableEntries, SETTLEABLE_TYPES, type SettleableEntry } from './issue.js';

/**
 * Settlement periods (docs/decisions/0050): a cutoff decides on the driver's wallet stream read from where
 * the last period closed and on that period's closing books, as a cashier's shift opens from the last
 * one's closing.
 */
/** The books of a pool that never closed a period: the whole wallet stream is still to be read. */
export const UNOPENED_BOOKS: Books = {
  throughRevision: -1,
  balanceCents: 0,
  reservedCents: 0,
  paidOutCents: 0,
  carried: [],
};

/** A wallet ledger entry as read from the wallet stream: its revision and the balance after it. */
export type WalletEntry = SettleableEntry & { revision: number; balanceAfterCents: number };

const signed = (e: { direction: 'CREDIT' | 'DEBIT'; amountCents: number }): number =>
  e.direction === 'CREDIT' ? e.amountCents : -e.amountCents;

/** Where a cutoff reads the wallet stream from: the oldest carried entry, else the first after the books. */
export const readFrom = (books: Books): number =>
  Math.min(books.throughRevision + 1, ...books.carried.map((c) => c.revision));

export interface PeriodFacts {
  /** The wallet entries from `readFrom(opening)` on, oldest first. */
  read: readonly WalletEntry[];
  /** Entries a rule holds back this time (the payout hold of docs/decisions/0046): carried, not settled. */
  heldEntryIds: ReadonlySet<string>;
  /** Entries receipts issued before periods existed cover (the pool's legacy `coveredBy`). */
  legacyCovered: ReadonlySet<string>;
  minBalanceCents: number;
}

export interface PeriodOutcome {
  settled: WalletEntry[];
  payableCents: number;
  closing: Books;
}

/**
 * Pure: what a cutoff settles from the opening books and the wallet read after them, and the books the
 * period closes with (the next one's opening). Null when nothing is settled: the period stays open, and the
 * next cutoff reads from the same place.
 */
export const closePeriod = (opening: Books, f: PeriodFacts): PeriodOutcome | null => {
  const carriedIds = new Set(opening.carried.map((c) => c.entryId));
  const carried = f.read.filter((e) => carriedIds.has(e.entryId));
  // A read that starts after a carried entry would settle without it: a caller's mistake, never a guess.
  if (carried.length !== carriedIds.size) throw new Error('The wallet read misses entries the books carry');
  const fresh = f.read.filter((e) => e.revision > opening.throughRevision);
  const last = fresh.at(-1);
  const balanceCents = last ? last.balanceAfterCents : opening.balanceCents;
  const paidOutCents =
    opening.paidOutCents + fresh.filter((e) => e.type === 'PAYOUT_SENT').reduce((s, e) => s - signed(e), 0);
  const open = [
    ...carried,
    ...fresh.filter((e) => SETTLEABLE_TYPES.includes(e.type) && !f.legacyCovered.has(e.entryId)),
  ].sort((a, b) => a.revision - b.revision);
  const settled = settleableEntries(
    open.filter((e) => !f.heldEntryIds.has(e.entryId)),
    {
      coveredEntryIds: new Set(),
      balanceCents,
      pendingPayoutCents: opening.reservedCents - paidOutCents,
      minBalanceCents: f.minBalanceCents,
    },
  );
  if (settled.length === 0) return null;
  const payableCents = settled.reduce((s, e) => s + signed(e), 0);
  const settledIds = new Set(settled.map((e) => e.entryId));
  return {
    settled,
    payableCents,
    closing: {
      throughRevision: last ? last.revision : opening.throughRevision,
      balanceCents,
      reservedCents: opening.reservedCents + payableCents,
      paidOutCents,
      carried: open
        .filter((e) => !settledIds.has(e.entryId))
        .map((e) => ({ entryId: e.entryId, revision: e.revision })),
    },
  };
};
