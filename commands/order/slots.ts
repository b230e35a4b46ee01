import { conflict, type DomainError } from '../../domain/errors.js';
import { orderStream } from '../../domain/order/events.js';
import { orderDecider } from '../../domain/order/order.js';
import {
  customerSlot,
  driverSlot,
  holdsCustomer,
  holdsDriver,
  slotDecider,
  type Holds,
} from '../../domain/order/slots.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import type { CommandDeps } from '../deps.js';
import { loadState, StreamBusy, type Reservation } from '../handle.js';

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
    for (let attempt = 1; attempt <= SLOT_ATTEMPTS; attempt++) {
      const current = await loadState(deps.store, streamId, slotDecider);
      const { orderId: holder, takenAt } = current.state;
      if (holder === orderId) return;
      if (holder !== null) {
        const { state: held } = await loadState(deps.store, orderStream(holder), orderDecider);
        if (holds(held, takenAt!, deps.clock.now())) throw busy();
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
