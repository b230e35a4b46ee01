import type { Decider } from '../decider.js';
import { conflict } from '../errors.js';
import type { SlotEvent } from './events.js';
import type { Order } from './order.js';
import { DRIVER_ASSIGNED, TERMINAL } from './rules.js';

/**
 * "One active order per customer" and "one active order per driver" span several order streams, so no
 * single order stream can enforce them. Each customer and each driver has a slot stream
 * (`customer-orders-<clientId>`, `driver-orders-<driverId>`) that names the order holding the slot. Taking
 * the slot appends to that stream with its expected revision, so of two concurrent takers exactly one
 * wins; the loser reads again and finds the slot held.
 *
 * Nothing has to "free" a slot: whether the named order still holds it is read from that order's own
 * stream (terminal, or assigned elsewhere, means free). A slot is taken in the same append as the order
 * command that needs it, so a slot never names an order whose command failed. (OrderSlotReleased, which such
 * a command once appended, is still folded for the streams that hold it.)
 */

export interface SlotState {
  orderId: number | null;
  takenAt: string | null;
}

/** Taking the slot from `holder` (null: free), whose order the taker found no longer holding it. */
export type SlotCommand = { type: 'TakeSlot'; orderId: number; holder: number | null; at: string };

export const slotDecider: Decider<SlotCommand, SlotState, SlotEvent> = {
  initialState: { orderId: null, takenAt: null },
  evolve: (s, e) =>
    e.type === 'OrderSlotTaken'
      ? { orderId: e.data.orderId, takenAt: e.data.at }
      : s.orderId === e.data.orderId
        ? { orderId: null, takenAt: null }
        : s,
  decide: (c, s) => {
    if (s.orderId === c.orderId) return [];
    // The holder was judged on the state as read; a slot that changed hands since is judged again.
    if (s.orderId !== c.holder) throw conflict('Conflict', 'The slot changed hands.');
    return [{ type: 'OrderSlotTaken', data: { orderId: c.orderId, at: c.at } }];
  },
};

export const customerSlot = (clientId: number): string => `customer-orders-${clientId}`;
export const driverSlot = (driverId: number): string => `driver-orders-${driverId}`;

/** Whether the order a slot names (null: its stream is empty) still holds the slot. */
export type Holds = (order: Order | null) => boolean;

/** The order named by a customer's slot occupies that customer until it ends. */
export const holdsCustomer: Holds = (order) => order !== null && !TERMINAL.includes(order.status);

/** The order named by a driver's slot occupies that driver from acceptance until it ends. */
export const holdsDriver =
  (driverId: number): Holds =>
  (order) =>
    order !== null && order.driverId === driverId && DRIVER_ASSIGNED.includes(order.status);
