import type { Decider } from '../decider.js';
import type { Books, EntryRef, PoolEvent } from './events.js';
import { closePeriod, UNOPENED_BOOKS, type PeriodFacts } from './period.js';

/**
 * A driver's settlement pool: which ledger entries live receipts cover, so that no entry is ever covered
 * twice, even by two cutoffs racing (the append's expected revision decides).
 *
 * Two generations share the stream (docs/decisions/0050). Receipts reserved before periods existed
 * (EntriesReserved) are remembered entry by entry in `coveredBy`; a period receipt (SettlementPeriodClosed)
 * moves the books forward instead, and the pool keeps only the books the next period opens with. A stream
 * with no period in it evolves as before, its books unopened: the first period reads the whole wallet
 * stream and leaves out what `coveredBy` holds.
 */
export interface PoolState {
  /** entry id → the live pre-period receipt that covers it; emptied by the first period, which settles past them. */
  coveredBy: Record<string, string>;
  /** Pre-period receipts: what a release of one returns. */
  reservations: Record<string, { entryIds: string[]; payableCents: number; released: boolean }>;
  /** The last closed period's number (0: none yet). */
  period: number;
  /** The books the next period opens with: the last period's closing, carried forward. */
  opening: Books;
  /** The last period's receipt and entries: what a run that finishes a crashed one issues. */
  lastClosed: { receiptId: string; entries: EntryRef[] } | null;
  version: number;
}

export const initialPool: PoolState = {
  coveredBy: {},
  reservations: {},
  period: 0,
  opening: UNOPENED_BOOKS,
  lastClosed: null,
  version: 0,
};

/** Entries back in the books: carried into the next period, their payable no longer pending. */
const returned = (books: Books, entries: EntryRef[], payableCents: number): Books => ({
  ...books,
  reservedCents: books.reservedCents - payableCents,
  carried: [...books.carried, ...entries.filter((e) => !books.carried.some((c) => c.entryId === e.entryId))],
});

export const evolvePool = (s: PoolState, e: PoolEvent): PoolState => {
  const version = s.version + 1;
  switch (e.type) {
    case 'EntriesReserved': {
      const coveredBy = { ...s.coveredBy };
      for (const id of e.data.entryIds) coveredBy[id] = e.data.receiptId;
      return {
        ...s,
        coveredBy,
        reservations: {
          ...s.reservations,
          [e.data.receiptId]: { entryIds: e.data.entryIds, payableCents: e.data.payableCents, released: false },
        },
        opening: { ...s.opening, reservedCents: s.opening.reservedCents + e.data.payableCents },
        version,
      };
    }
    case 'EntriesReleased': {
      const r = s.reservations[e.data.receiptId];
      if (!r || r.released) return { ...s, version };
      const coveredBy = { ...s.coveredBy };
      for (const id of r.entryIds) if (coveredBy[id] === e.data.receiptId) delete coveredBy[id];
      // Before any period the first one reads the wallet from the start; after one, the books carry the
      // entries at revision 0 ("somewhere from the start"), so the next read starts there once.
      const carried = s.period === 0 ? [] : r.entryIds.map((entryId) => ({ entryId, revision: 0 }));
      return {
        ...s,
        coveredBy,
        reservations: { ...s.reservations, [e.data.receiptId]: { ...r, released: true } },
        opening: returned(s.opening, carried, r.payableCents),
        version,
      };
    }
    case 'SettlementPeriodClosed':
      return {
        ...s,
        coveredBy: {},
        reservations: e.data.reservations ?? s.reservations,
        period: e.data.period,
        opening: e.data.closing,
        lastClosed: { receiptId: e.data.receiptId, entries: e.data.entries },
        version,
      };
    case 'EntriesReturned':
      return { ...s, opening: returned(s.opening, e.data.entries, e.data.payableCents), version };
  }
};

export type PoolCommand =
  | {
      type: 'ReleaseEntries';
      driverId: number;
      receiptId: string;
      /** The receipt's entries and payable (its ReceiptIssued): what a period receipt returns to the books. */
      entryIds: string[];
      payableCents: number;
      at: string;
    }
  | ({
      type: 'CloseSettlementPeriod';
      driverId: number;
      receiptId: string;
      at: string;
    } & Omit<PeriodFacts, 'legacyCovered'>);

export const decidePool = (c: PoolCommand, s: PoolState): PoolEvent[] => {
  switch (c.type) {
    case 'ReleaseEntries': {
      const r = s.reservations[c.receiptId];
      if (r)
        return r.released
          ? []
          : [{ type: 'EntriesReleased', data: { driverId: c.driverId, receiptId: c.receiptId, at: c.at } }];
      // A period receipt: its entries go back to the books, at revision 0 (the receipt does not know where
      // they are in the wallet stream), so the next period reads from the start and settles them again.
      // Once per receipt: the event id follows from the receipt (the effect that annuls it).
      return [
        {
          type: 'EntriesReturned',
          data: {
            driverId: c.driverId,
            receiptId: c.receiptId,
            entries: c.entryIds.map((entryId) => ({ entryId, revision: 0 })),
            payableCents: c.payableCents,
            at: c.at,
          },
        },
      ];
    }
    case 'CloseSettlementPeriod': {
      const outcome = closePeriod(s.opening, { ...c, legacyCovered: new Set(Object.keys(s.coveredBy)) });
      if (!outcome) return [];
      return [
        {
          type: 'SettlementPeriodClosed',
          data: {
            driverId: c.driverId,
            period: s.period + 1,
            receiptId: c.receiptId,
            entries: outcome.settled.map((e) => ({ entryId: e.entryId, revision: e.revision })),
            payableCents: outcome.payableCents,
            opening: s.opening,
            closing: outcome.closing,
            at: c.at,
            reservations: s.reservations,
          },
        },
      ];
    }
  }
};

/**
 * The pool read from its last period close on (docs/decisions/0098): the close holds the whole state, and
 * the version still counts every event of the stream. Null when `events` does not start with a close that
 * carries the reservations: the caller reads the stream from its start.
 */
export const poolFromClose = (closeRevision: number, events: readonly PoolEvent[]): PoolState | null => {
  const [close] = events;
  if (close?.type !== 'SettlementPeriodClosed' || !close.data.reservations) return null;
  return events.reduce(evolvePool, { ...initialPool, version: closeRevision });
};

export const poolDecider: Decider<PoolCommand, PoolState, PoolEvent> = {
  initialState: initialPool,
  evolve: evolvePool,
  decide: decidePool,
};
