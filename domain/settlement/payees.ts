import type { Decider } from '../decider.js';
import type { PayeeEvent } from './events.js';

/**
 * The drivers settlement pays (docs/decisions/0055): each driver once, from the first payout account on.
 * A cutoff visits every one of them and decides on each driver's own streams, so the list never waits for
 * a read model and never misses a driver whose wallet moved a moment ago. It grows with the drivers, not
 * with their entries.
 */
export interface PayeesState {
  /** In the order they enrolled. */
  enrolled: ReadonlySet<number>;
}

export type PayeesCommand = { type: 'EnrollPayee'; driverId: number; at: string };

export const payeesDecider: Decider<PayeesCommand, PayeesState, PayeeEvent> = {
  initialState: { enrolled: new Set() },
  evolve: (s, e) => (s.enrolled.has(e.data.driverId) ? s : { enrolled: new Set(s.enrolled).add(e.data.driverId) }),
  // A second account, or a second instance reacting to the same one, enrolls nobody twice.
  decide: (c, s) =>
    s.enrolled.has(c.driverId) ? [] : [{ type: 'PayeeEnrolled', data: { driverId: c.driverId, at: c.at } }],
};
