import { describe, expect, it } from 'vitest';
import { fold } from '../decider.js';
import type { PoolEvent } from './events.js';
import { decidePool, evolvePool, initialPool } from './pool.js';

const at = '2026-11-23T22:00:00.000Z';
const reserved = (receiptId: string, entryIds: string[]): PoolEvent => ({
  type: 'EntriesReserved',
  data: { driverId: 1, receiptId, entryIds, payableCents: 100, at },
});

describe('settlement pool', () => {
  it('reserves uncovered entries once; the same receipt again appends nothing', () => {
    const s = fold(evolvePool, initialPool, [reserved('r1', ['a', 'b'])]);
    expect(
      decidePool(
        { type: 'ReserveEntries', driverId: 1, receiptId: 'r1', entryIds: ['a', 'b'], payableCents: 100, at },
        s,
      ),
    ).toEqual([]);
    expect(() =>
      decidePool(
        { type: 'ReserveEntries', driverId: 1, receiptId: 'r2', entryIds: ['b', 'c'], payableCents: 100, at },
        s,
      ),
    ).toThrow(/already covered/);
  });

  it('a release returns the entries to the pool, once', () => {
    const s = fold(evolvePool, initialPool, [
      reserved('r1', ['a']),
      { type: 'EntriesReleased', data: { driverId: 1, receiptId: 'r1', at } },
    ]);
    expect(s.coveredBy).toEqual({});
    expect(decidePool({ type: 'ReleaseEntries', driverId: 1, receiptId: 'r1', at }, s)).toEqual([]);
    expect(
      decidePool({ type: 'ReserveEntries', driverId: 1, receiptId: 'r2', entryIds: ['a'], payableCents: 100, at }, s),
    ).toHaveLength(1);
  });
});
