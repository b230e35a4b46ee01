import { randomUUID } from 'node:crypto';
import type { OrderEvent } from '../../domain/order/events.js';
import { decide, evolve, initialState, type OrderCommand, type OrderState } from '../../domain/order/order.js';
import type { AppContext } from '../../infra/context.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import { loadState, type Aggregate, type Decided } from '../handle.js';

/** One stream per order, holding the order and its offers (domain/order/events.ts). */
export const orderStream = (orderId: number): string => `order-${orderId}`;

export const orderAggregate: Aggregate<OrderState, OrderEvent> = { initialState, evolve };

export const loadOrder = async (ctx: AppContext, orderId: number): Promise<OrderState> =>
  (await loadState(ctx.store, orderStream(orderId), orderAggregate)).state;

export type IdentifiedOrderEvent = OrderEvent & { eventId: string };

/**
 * load → decide → append on the order stream. `build` turns the current state into the command (it may
 * throw an access error first). Returns the appended events with their ids, for the process manager.
 */
export const runOrderCommand = async (
  ctx: AppContext,
  orderId: number,
  build: (state: OrderState) => OrderCommand,
  metadata?: EventMetadata,
  eventIds?: (index: number) => string,
) => {
  let decided: IdentifiedOrderEvent[] = [];
  const result = await ctx.handle(
    orderStream(orderId),
    orderAggregate,
    (state): Decided<OrderEvent>[] => {
      decided = decide(build(state), state).map((e, i) => ({ ...e, eventId: eventIds?.(i) ?? randomUUID() }) as IdentifiedOrderEvent);
      return decided;
    },
    metadata,
  );
  return { position: result.position, state: result.state, decided: result.events.length === 0 ? [] : decided };
};
