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
import { loadState, StreamBusy, type Loaded, type Reservation } from '../handle.js';

/**
 * An order's slots (domain/order/slots.ts) as reservations of the one command path: taken once the order
 * command has decided, before its append, and given back when the command then fails.
 */

type SlotDeps = Pick<CommandDeps, 'store' | 'handle' | 'clock' | 'logger'>;

const SLOT_ATTEMPTS = 8;

/**
 * Whether the named order still holds the slot is read from that order's stream, so each attempt of `take`
 * reads the slot, judges its holder, and appends through the one handler with the slot as read (one attempt
 * there: a slot that changed hands meanwhile is read and judged again here).
 *
 * The slot comes from the state cache when it is there: the append checks its revision. A cached slot that
 * would lead to no append (already ours, or held) is read again before it is believed. The holder's order
 * is taken from the cache only when it has ended there, since an ended order never holds a slot again.
 */
const holderOrder = async (deps: SlotDeps, orderId: number): Promise<Order | null> => {
  const known = deps.handle.known(orderDecider, orderStream(orderId));
  if (known && TERMINAL.includes(known.status)) return known;
  return (await loadState(deps.store, orderStream(orderId), orderDecider)).state;
};

const slot = (
  deps: SlotDeps,
  streamId: string,
  orderId: number,
  holds: Holds,
  busy: () => DomainError,
  metadata?: EventMetadata,
): Reservation => ({
  take: async () => {
    let trustCache = true;
    for (let attempt = 1; attempt <= SLOT_ATTEMPTS; attempt++) {
      const current: Loaded<SlotState> = trustCache
        ? await deps.handle.load(slotDecider, streamId)
        : await loadState(deps.store, streamId, slotDecider);
      const { orderId: holder, takenAt } = current.state;
      const doubt = () => {
        trustCache = false;
        attempt--;
      };
      if (holder === orderId) {
        if (current.cached) {
          doubt();
          continue;
        }
        return;
      }
      if (holder !== null && holds(await holderOrder(deps, holder), takenAt!, deps.clock.now())) {
        if (current.cached) {
          doubt();
          continue;
        }
        throw busy();
      }
      try {
        await deps.handle(
          slotDecider,
          streamId,
          { type: 'TakeSlot', orderId, holder, at: deps.clock.now().toISOString() },
          { metadata, loaded: current, attempts: 1 },
        );
        return;
      } catch (err) {
        if (!(err instanceof StreamBusy)) throw err;
      }
    }
    throw busy();
  },
  release: () =>
    deps
      .handle(slotDecider, streamId, { type: 'ReleaseSlot', orderId, at: deps.clock.now().toISOString() }, { metadata })
      .then(
        () => undefined,
        (err: unknown) => deps.logger.error({ err, streamId }, 'releasing an order slot failed'),
      ),
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
