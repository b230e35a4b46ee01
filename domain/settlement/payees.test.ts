import { describe, expect, it } from 'vitest';
import { fold } from '../decider.js';
import { enrolledOf, isEnrolled, payeesDecider, type PayeesState } from './payees.js';

const at = '2026-11-23T20:00:00.000Z';
const { decide, evolve, initialState } = payeesDecider;
const enroll = (state: PayeesState, driverId: number) =>
  fold(evolve, state, decide({ type: 'EnrollPayee', driverId, at }, state));

describe('the payees’ register (docs/decisions/0055)', () => {
  it('enrolls each driver once, in the order they came', () => {
    const state = [7, 3, 7].reduce(enroll, initialState);
    expect(enrolledOf(state)).toEqual([7, 3]);
    expect(decide({ type: 'EnrollPayee', driverId: 3, at }, state)).toEqual([]);
  });

  it('keeps every state as it was when a later one grew from it, or from the same one twice', () => {
    const read = [1, 2].reduce(enroll, initialState);
    const won = enroll(read, 3);
    // A decision that lost the race decides again from what it read: it sees neither 3 nor its rival's 4.
    const lost = enroll(read, 4);
    const next = enroll(won, 5);
    expect(enrolledOf(read)).toEqual([1, 2]);
    expect(enrolledOf(won)).toEqual([1, 2, 3]);
    expect(enrolledOf(lost)).toEqual([1, 2, 4]);
    expect(enrolledOf(next)).toEqual([1, 2, 3, 5]);
    expect([isEnrolled(read, 3), isEnrolled(lost, 3), isEnrolled(won, 4), isEnrolled(next, 3)]).toEqual([
      false,
      false,
      false,
      true,
    ]);
    expect(enrolledOf(enroll(initialState, 9))).toEqual([9]);
    expect(enrolledOf(initialState)).toEqual([]);
  });

  it('reads a register of 50,000 drivers in time linear in its events', () => {
    const events = Array.from({ length: 50_000 }, (_, i) => ({
      type: 'PayeeEnrolled' as const,
      data: { driverId: i + 1, at },
    }));
    const started = performance.now();
    const state = fold(evolve, initialState, events);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(enrolledOf(state)).toHaveLength(50_000);
  });
});
