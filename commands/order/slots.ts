import { conflict, type DomainError } from '../../domain/errors.js';
import { orderStream } from '../../domain/order/events.js';
import { orderDecider, type Order } from '../../domain/order/order.js';
import { TERMINAL } from '../../domain/order/rules.js';
import {
  customerSlot,
  driverSlot,
  holdsCustomer,
  holdsDriver,
  slotDecider,
  type Holds,
  type SlotState,
} from '../../domain/order/slots.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import type { CommandDeps } from '../deps.js';
import { loadState, type Loaded, type Reservation } from '../handle.js';

/**
 * An order's slots (domain/order/slots.ts) as reservations of the one command path: taken once the order
 * command has decided, in the same append as the order's events, so a command that fails holds none.
 */

type SlotDeps = Pick<CommandDeps, 'store' | 'handle' | 'clock'>;

/**
 * Whether the named order still holds the slot is read from that order's stream. The holder's order is
 * taken from the cache only when it has ended there, since an ended order never holds a slot again.
 */
const holderOrder = async (deps: SlotDeps, orderId: number): Promise<Order | null> => {
  const known = deps.handle.known(orderDecider, orderStream(orderId));
  if (known && TERMINAL.includes(known.status)) return known;
  return (await loadState(deps.store, orderStream(orderId), orderDecider)).state;
};

/**
 * The slot comes as the command decided it, or from the state cache, or read: the append checks its
 * revision. A cached slot that would lead to no append (already ours, or held) is read before it is believed.
 */
const slot = (
  deps: SlotDeps,
  streamId: string,
  orderId: number,
  holds: Holds,
  busy: () => DomainError,
  metadata?: EventMetadata,
): Reservation => ({
  take: async () => {
    let current: Loaded<SlotState> = await deps.handle.load(slotDecider, streamId);
    for (;;) {
      const { orderId: holder } = current.state;
      const free = holder !== orderId && (holder === null || !holds(await holderOrder(deps, holder)));
      if (free) break;
      if (!current.cached) {
        if (holder === orderId) return;
        throw busy();
      }
      const { state, version } = await loadState(deps.store, streamId, slotDecider);
      current = { state, version };
    }
    const { orderId: holder } = current.state;
    await deps.handle(
      slotDecider,
      streamId,
      { type: 'TakeSlot', orderId, holder, at: deps.clock.now().toISOString() },
      { metadata, loaded: current },
    );
  },
});

/** The client's one active order. */
export const customerSlotFor = (
  deps: SlotDeps,
  clientId: number,
  orderId: number,
  metadata?: EventMetadata,
): Reservation =>
  slot(
    deps,
    customerSlot(clientId),
    orderId,
    holdsCustomer,
    () => conflict('ActiveOrderExists', 'You already have an active order.'),
    metadata,
  );

/** The driver's one active order. */
export const driverSlotFor = (
  deps: SlotDeps,
  driverId: number,
  orderId: number,
  metadata?: EventMetadata,
): Reservation =>
  slot(
    deps,
    driverSlot(driverId),
    orderId,
    holdsDriver(driverId),
    () => conflict('Conflict', 'The driver is busy with another order.'),
    metadata,
  );
