import type { Decider } from '../decider.js';
import { conflict } from '../errors.js';
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
  version: number;
}

export const initialPool: PoolState = {
  coveredBy: {},
  reservations: {},
  period: 0,
  opening: UNOPENED_BOOKS,
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
      return { ...s, coveredBy: {}, period: e.data.period, opening: e.data.closing, version };
    case 'EntriesReturned':
      return { ...s, opening: returned(s.opening, e.data.entries, e.data.payableCents), version };
  }
};

export type PoolCommand =
  | {
      type: 'ReserveEntries';
      driverId: number;
      receiptId: string;
      entryIds: string[];
      payableCents: number;
      at: string;
    }
  | { type: 'ReleaseEntries'; driverId: number; receiptId: string; at: string }
  | ({
      type: 'CloseSettlementPeriod';
      driverId: number;
      receiptId: string;
      at: string;
    } & Omit<PeriodFacts, 'legacyCovered'>)
  | {
      type: 'ReturnEntries';
      driverId: number;
      receiptId: string;
      entries: EntryRef[];
      payableCents: number;
      at: string;
    };

export const decidePool = (c: PoolCommand, s: PoolState): PoolEvent[] => {
  switch (c.type) {
    case 'ReserveEntries': {
      if (s.reservations[c.receiptId]) return [];
      const taken = c.entryIds.filter((id) => s.coveredBy[id]);
      if (taken.length)
        throw conflict('Conflict', `Ledger entries already covered by a live receipt: ${taken.join(', ')}`);
      return [
        {
          type: 'EntriesReserved',
          data: {
            driverId: c.driverId,
            receiptId: c.receiptId,
            entryIds: c.entryIds,
            payableCents: c.payableCents,
            at: c.at,
          },
        },
      ];
    }
    case 'ReleaseEntries': {
      const r = s.reservations[c.receiptId];
      return r && !r.released
        ? [{ type: 'EntriesReleased', data: { driverId: c.driverId, receiptId: c.receiptId, at: c.at } }]
        : [];
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
          },
        },
      ];
    }
    // Once per receipt: the event id follows from the receipt (the effect that annuls it), as a release's does.
    case 'ReturnEntries':
      return [
        {
          type: 'EntriesReturned',
          data: {
            driverId: c.driverId,
            receiptId: c.receiptId,
            entries: c.entries,
            payableCents: c.payableCents,
            at: c.at,
          },
        },
      ];
  }
};

export const poolDecider: Decider<PoolCommand, PoolState, PoolEvent> = {
  initialState: initialPool,
  evolve: evolvePool,
  decide: decidePool,
};
