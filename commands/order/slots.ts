import { conflict, type DomainError } from '../../domain/errors.js';
import { orderStream, type SlotEvent } from '../../domain/order/events.js';
import { orderDecider, type Order } from '../../domain/order/order.js';
import type { AppContext } from '../../infra/context.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import type { Decider } from '../../domain/decider.js';
import { loadState, StreamBusy } from '../handle.js';

/**
 * "One active order per customer" and "one active order per driver" span several order streams, so no
 * single order stream can enforce them. Each customer and each driver has a slot stream
 * (`customer-orders-<clientId>`, `driver-orders-<driverId>`) that names the order holding the slot. Taking
 * the slot appends to that stream with its expected revision, so of two concurrent takers exactly one
 * wins; the loser reloads and finds the slot held.
 *
 * Nothing has to "free" a slot: whether the named order still holds it is read from that order's own
 * stream (terminal, or assigned elsewhere, means free). A taker whose order command then fails appends
 * SlotReleased; a taker that crashed in between leaves a slot that frees itself after SLOT_PENDING_MS.
 */
export const SLOT_PENDING_MS = 30_000;

interface SlotState {
  orderId: number | null;
  takenAt: string | null;
}

type SlotCommand =
  /** Taking the slot from `holder` (null: free), whose order the taker found no longer holding it. */
  | { type: 'TakeSlot'; orderId: number; holder: number | null; at: string }
  /** Giving a slot back: only the order that holds it releases it. */
  | { type: 'ReleaseSlot'; orderId: number; at: string };

const slotDecider: Decider<SlotCommand, SlotState, SlotEvent> = {
  initialState: { orderId: null, takenAt: null },
  evolve: (s, e) =>
    e.type === 'OrderSlotTaken' ? { orderId: e.data.orderId, takenAt: e.data.at } : s.orderId === e.data.orderId ? { orderId: null, takenAt: null } : s,
  decide: (c, s) => {
    if (c.type === 'ReleaseSlot') return s.orderId === c.orderId ? [{ type: 'OrderSlotReleased', data: { orderId: c.orderId, at: c.at } }] : [];
    if (s.orderId === c.orderId) return [];
    // The holder was judged on the state as read; a slot that changed hands since is judged again.
    if (s.orderId !== c.holder) throw conflict('Conflict', 'The slot changed hands.');
    return [{ type: 'OrderSlotTaken', data: { orderId: c.orderId, at: c.at } }];
  },
};

const SLOT_ATTEMPTS = 8;

export const customerSlot = (clientId: number): string => `customer-orders-${clientId}`;
export const driverSlot = (driverId: number): string => `driver-orders-${driverId}`;

const CUSTOMER_FREE: readonly string[] = ['DELIVERED', 'CANCELLED', 'EXPIRED'];
const DRIVER_HOLDING: readonly string[] = ['WAITING_FOR_PAYMENT', 'CONFIRMED', 'IN_PROGRESS', 'ARRIVED'];

/** Whether the order named by a customer's slot still occupies that customer. */
const holdsCustomer = (order: Order | null, pending: boolean): boolean => (order ? !CUSTOMER_FREE.includes(order.status) : pending);

/** Whether the order named by a driver's slot still occupies that driver. */
const holdsDriver = (driverId: number) => (order: Order | null, pending: boolean): boolean => {
  if (order && order.driverId === driverId) return DRIVER_HOLDING.includes(order.status);
  // Not (yet) assigned: the taker's accept is in flight, or it failed and will release the slot.
  return pending && (!order || order.status === 'BROADCASTING' || order.status === 'COUNTER_OFFERED');
};

/**
 * Whether the named order still holds the slot is read from that order's stream, so each attempt reads
 * the slot, judges its holder, and appends through the one handler with the slot as read (one attempt
 * there: a slot that changed hands meanwhile is read and judged again here).
 */
const takeSlot = async (
  ctx: AppContext,
  streamId: string,
  orderId: number,
  holds: (order: Order | null, pending: boolean) => boolean,
  busy: () => DomainError,
  metadata?: EventMetadata,
): Promise<void> => {
  for (let attempt = 1; attempt <= SLOT_ATTEMPTS; attempt++) {
    const slot = await loadState(ctx.store, streamId, slotDecider);
    const { orderId: holder, takenAt } = slot.state;
    if (holder === orderId) return;
    if (holder !== null) {
      const { state: held } = await loadState(ctx.store, orderStream(holder), orderDecider);
      const pending = ctx.clock.now().getTime() - Date.parse(takenAt!) < SLOT_PENDING_MS;
      if (holds(held, pending)) throw busy();
    }
    try {
      await ctx.handle(slotDecider, streamId, { type: 'TakeSlot', orderId, holder, at: ctx.clock.now().toISOString() }, { metadata, loaded: slot, attempts: 1 });
      return;
    } catch (err) {
      if (!(err instanceof StreamBusy)) throw err;
    }
  }
  throw busy();
};

/** Gives the slot back when the command it was taken for did not happen. */
const releaseSlot = async (ctx: AppContext, streamId: string, orderId: number, metadata?: EventMetadata): Promise<void> => {
  await ctx.handle(slotDecider, streamId, { type: 'ReleaseSlot', orderId, at: ctx.clock.now().toISOString() }, { metadata });
};

/** Runs `command` holding the slot; a failed command gives the slot back before its error propagates. */
const withSlot = async <T>(
  ctx: AppContext,
  streamId: string,
  orderId: number,
  holds: (order: Order | null, pending: boolean) => boolean,
  busy: () => DomainError,
  command: () => Promise<T>,
  metadata?: EventMetadata,
): Promise<T> => {
  await takeSlot(ctx, streamId, orderId, holds, busy, metadata);
  try {
    return await command();
  } catch (err) {
    await releaseSlot(ctx, streamId, orderId, metadata).catch((e) => ctx.logger.error({ err: e, streamId }, 'releasing an order slot failed'));
    throw err;
  }
};

export const withCustomerSlot = <T>(ctx: AppContext, clientId: number, orderId: number, busy: () => DomainError, command: () => Promise<T>, metadata?: EventMetadata) =>
  withSlot(ctx, customerSlot(clientId), orderId, holdsCustomer, busy, command, metadata);

export const withDriverSlot = <T>(ctx: AppContext, driverId: number, orderId: number, busy: () => DomainError, command: () => Promise<T>, metadata?: EventMetadata) =>
  withSlot(ctx, driverSlot(driverId), orderId, holdsDriver(driverId), busy, command, metadata);
