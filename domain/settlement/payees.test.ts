import { describe, expect, it } from 'vitest';
import { fold } from '../decider.js';
import { payeesDecider } from './payees.js';

const at = '2026-11-23T20:00:00.000Z';

describe('the payees’ register (docs/decisions/0055)', () => {
  it('enrolls each driver once, in the order they came', () => {
    const { decide, evolve, initialState } = payeesDecider;
    let state = initialState;
    for (const driverId of [7, 3, 7]) state = fold(evolve, state, decide({ type: 'EnrollPayee', driverId, at }, state));
    expect([...state.enrolled]).toEqual([7, 3]);
    expect(decide({ type: 'EnrollPayee', driverId: 3, at }, state)).toEqual([]);
  });
});
