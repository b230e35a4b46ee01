import type { Decider } from '../decider.js';
import { conflict } from '../errors.js';
import type { SlotEvent } from './events.js';
import type { Order } from './order.js';
import { DRIVER_ASSIGNED, isBidding, TERMINAL } from './rules.js';

/**
 * "One active order per customer" and "one active order per driver" span several order streams, so no
 * single order stream can enforce them. Each customer and each driver has a slot stream
 * (`customer-orders-<clientId>`, `driver-orders-<driverId>`) that names the order holding the slot. Taking
 * the slot appends to that stream with its expected revision, so of two concurrent takers exactly one
 * wins; the loser reads again and finds the slot held.
 *
 * Nothing has to "free" a slot: whether the named order still holds it is read from that order's own
 * stream (terminal, or assigned elsewhere, means free). A taker whose order command then fails appends
 * OrderSlotReleased; a taker that crashed in between leaves a slot that frees itself after SLOT_PENDING_MS.
 */
export const SLOT_PENDING_MS = 30_000;

export interface SlotState {
  orderId: number | null;
  takenAt: string | null;
}

export type SlotCommand =
  /** Taking the slot from `holder` (null: free), whose order the taker found no longer holding it. */
  | { type: 'TakeSlot'; orderId: number; holder: number | null; at: string }
  /** Giving a slot back: only the order that holds it releases it. */
  | { type: 'ReleaseSlot'; orderId: number; at: string };

export const slotDecider: Decider<SlotCommand, SlotState, SlotEvent> = {
  initialState: { orderId: null, takenAt: null },
  evolve: (s, e) =>
    e.type === 'OrderSlotTaken'
      ? { orderId: e.data.orderId, takenAt: e.data.at }
      : s.orderId === e.data.orderId
        ? { orderId: null, takenAt: null }
        : s,
  decide: (c, s) => {
    if (c.type === 'ReleaseSlot')
      return s.orderId === c.orderId ? [{ type: 'OrderSlotReleased', data: { orderId: c.orderId, at: c.at } }] : [];
    if (s.orderId === c.orderId) return [];
    // The holder was judged on the state as read; a slot that changed hands since is judged again.
    if (s.orderId !== c.holder) throw conflict('Conflict', 'The slot changed hands.');
    return [{ type: 'OrderSlotTaken', data: { orderId: c.orderId, at: c.at } }];
  },
};

export const customerSlot = (clientId: number): string => `customer-orders-${clientId}`;
export const driverSlot = (driverId: number): string => `driver-orders-${driverId}`;

/** Whether the order a slot names (null: its stream is still empty) still holds the slot taken at `takenAt`. */
export type Holds = (order: Order | null, takenAt: string, now: Date) => boolean;

/** A slot taken this recently may belong to a command still in flight. */
const pending = (takenAt: string, now: Date): boolean => now.getTime() - Date.parse(takenAt) < SLOT_PENDING_MS;

/** The order named by a customer's slot occupies that customer until it ends. */
export const holdsCustomer: Holds = (order, takenAt, now) =>
  order ? !TERMINAL.includes(order.status) : pending(takenAt, now);

/** The order named by a driver's slot occupies that driver from acceptance until it ends. */
export const holdsDriver =
  (driverId: number): Holds =>
  (order, takenAt, now) => {
    if (order && order.driverId === driverId) return DRIVER_ASSIGNED.includes(order.status);
    // Not (yet) assigned: the taker's accept is in flight, or it failed and will release the slot.
    return pending(takenAt, now) && (!order || isBidding(order.status));
  };
