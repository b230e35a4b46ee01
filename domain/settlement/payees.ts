import type { Decider } from '../decider.js';
import type { PayeeEvent } from './events.js';

/**
 * The drivers settlement pays (docs/decisions/0055): each driver once, from the first payout account on.
 * A cutoff visits every one of them and decides on each driver's own streams, so the list never waits for
 * a read model and never misses a driver whose wallet moved a moment ago. It grows with the drivers, not
 * with their entries.
 *
 * A state holds a prefix of one list shared by the states folded from it. Evolving the newest state appends
 * to the list in place, so reading a register of n drivers costs n; copying a set per event cost n² (2.5 s
 * at 10,000 drivers, on every cutoff and every reload of the register). Evolving an older state (a decision
 * that lost a race decides again from what it read) copies its prefix first, so no state ever sees a
 * driver enrolled after it.
 */
export interface PayeesState {
  /** How many drivers of the shared list are this state's. */
  readonly count: number;
  readonly roll: Roll;
}

interface Roll {
  /** In the order they enrolled. */
  readonly order: number[];
  /** Each driver's place in `order`. */
  readonly place: Map<number, number>;
}

const NOBODY: Roll = { order: [], place: new Map() };

export const isEnrolled = (s: PayeesState, driverId: number): boolean =>
  (s.roll.place.get(driverId) ?? s.count) < s.count;

/** In the order they enrolled. */
export const enrolledOf = (s: PayeesState): number[] => s.roll.order.slice(0, s.count);

const rollFor = (s: PayeesState): Roll => {
  if (s.roll !== NOBODY && s.roll.order.length === s.count) return s.roll;
  const order = enrolledOf(s);
  return { order, place: new Map(order.map((driverId, i) => [driverId, i])) };
};

export type PayeesCommand = { type: 'EnrollPayee'; driverId: number; at: string };

export const payeesDecider: Decider<PayeesCommand, PayeesState, PayeeEvent> = {
  initialState: { count: 0, roll: NOBODY },
  evolve: (s, e) => {
    if (isEnrolled(s, e.data.driverId)) return s;
    const roll = rollFor(s);
    roll.place.set(e.data.driverId, roll.order.push(e.data.driverId) - 1);
    return { count: s.count + 1, roll };
  },
  // A second account, or a second instance reacting to the same one, enrolls nobody twice.
  decide: (c, s) =>
    isEnrolled(s, c.driverId) ? [] : [{ type: 'PayeeEnrolled', data: { driverId: c.driverId, at: c.at } }],
};
