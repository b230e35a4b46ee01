import type { Decider } from '../decider.js';
import { conflict } from '../errors.js';
import type { PoolEvent } from './events.js';

/**
 * A driver's settlement pool: which ledger entries live receipts cover. A receipt reserves its entries
 * here before it is issued, and an annulment releases them for the next cutoff; the append's expected
 * revision makes two cutoffs racing for one driver reserve each entry once.
 */
export interface PoolState {
  /** entry id → the live receipt that covers it */
  coveredBy: Record<string, string>;
  reservations: Record<string, { entryIds: string[]; payableCents: number; released: boolean }>;
  version: number;
}

export const initialPool: PoolState = { coveredBy: {}, reservations: {}, version: 0 };

export const evolvePool = (s: PoolState, e: PoolEvent): PoolState => {
  switch (e.type) {
    case 'EntriesReserved': {
      const coveredBy = { ...s.coveredBy };
      for (const id of e.data.entryIds) coveredBy[id] = e.data.receiptId;
      return {
        coveredBy,
        reservations: {
          ...s.reservations,
          [e.data.receiptId]: { entryIds: e.data.entryIds, payableCents: e.data.payableCents, released: false },
        },
        version: s.version + 1,
      };
    }
    case 'EntriesReleased': {
      const r = s.reservations[e.data.receiptId];
      const coveredBy = { ...s.coveredBy };
      for (const id of r?.entryIds ?? []) if (coveredBy[id] === e.data.receiptId) delete coveredBy[id];
      return {
        coveredBy,
        reservations: r ? { ...s.reservations, [e.data.receiptId]: { ...r, released: true } } : s.reservations,
        version: s.version + 1,
      };
    }
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
  | { type: 'ReleaseEntries'; driverId: number; receiptId: string; at: string };

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
  }
};

export const poolDecider: Decider<PoolCommand, PoolState, PoolEvent> = {
  initialState: initialPool,
  evolve: evolvePool,
  decide: decidePool,
};
