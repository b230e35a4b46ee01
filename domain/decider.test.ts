import { describe, expect, it } from 'vitest';
import { inTurn, type Decider } from './decider.js';

type Counted = { type: 'Added'; data: { n: number; total: number } };
/** A counter that refuses to pass 3: each command sees the total its predecessors left. */
const counter: Decider<{ add: number }, number, Counted> = {
  initialState: 0,
  evolve: (_total, e) => e.data.total,
  decide: (c, total) => {
    if (total + c.add > 3) throw new Error('over 3');
    return [{ type: 'Added', data: { n: c.add, total: total + c.add } }];
  },
};

describe('inTurn', () => {
  it('decides each command on the state the events before it leave, in one list', () => {
    expect(inTurn(counter).decide([{ add: 1 }, { add: 2 }], 0)).toEqual([
      { type: 'Added', data: { n: 1, total: 1 } },
      { type: 'Added', data: { n: 2, total: 3 } },
    ]);
  });

  it('refuses the whole list when a later command is refused on that state', () => {
    expect(() => inTurn(counter).decide([{ add: 2 }, { add: 2 }], 0)).toThrow('over 3');
  });
});
