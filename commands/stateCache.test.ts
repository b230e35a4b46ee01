import { describe, expect, it } from 'vitest';
import { inTurn } from '../domain/decider.js';
import { orderDecider } from '../domain/order/order.js';
import { creditDecider } from '../domain/credit/credit.js';
import { StateCache } from './stateCache.js';

describe('the state cache', () => {
  it('gives a stream’s state to every decider folding it the same way, and to no other', () => {
    const cache = new StateCache();
    const state = { ...orderDecider.initialState };
    cache.set('order-7', orderDecider, state, 4);
    // The driver's arrival decides two order commands in turn on the order's own fold.
    expect(cache.get('order-7', inTurn(orderDecider))).toEqual({ state, version: 4 });
    expect(cache.get('order-7', creditDecider)).toBeUndefined();
  });

  it('forgets the least recently used stream first', () => {
    const cache = new StateCache(2);
    cache.set('order-1', orderDecider, 'one', 1);
    cache.set('order-2', orderDecider, 'two', 1);
    cache.get('order-1', orderDecider);
    cache.set('order-3', orderDecider, 'three', 1);
    expect(cache.get('order-2', orderDecider)).toBeUndefined();
    expect(cache.get('order-1', orderDecider)?.state).toBe('one');
  });
});
