import type { Actor } from '../../domain/actor.js';
import { visibleOrder } from '../../domain/order/access.js';
import { notFound } from '../../domain/errors.js';
import { orderStream } from '../../domain/order/events.js';
import { orderDecider } from '../../domain/order/order.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import type { CommandDeps } from '../deps.js';
import { SYSTEM } from '../origin.js';

/** How an order or an offer ends without a delivery: cancelled by a party, or expired by a timer. */

type ClosingDeps = Pick<CommandDeps, 'handle' | 'clock'>;

/** POST /orders/{id}/cancel: the client, the assigned driver or an admin. */
export const cancelOrder = (
  ctx: ClosingDeps,
  actor: Actor,
  input: { orderId: number; reasonCode: string | null; reason: string | null },
  metadata?: EventMetadata,
) =>
  ctx.handle(
    orderDecider,
    orderStream(input.orderId),
    (s) => {
      visibleOrder(s, actor, () => notFound('CancelError', 'Order not found.'));
      return {
        type: 'CancelOrder',
        actor: { role: actor.role, userId: actor.role === 'DRIVER' ? (actor.driverId ?? -1) : actor.id },
        reasonCode: input.reasonCode,
        reason: input.reason,
        now: ctx.clock.now(),
      };
    },
    { metadata },
  );

/** Timers: each is a no-op when the order or offer has moved on (or the timer fired early). */
export const expireOrder = (ctx: ClosingDeps, orderId: number) =>
  ctx.handle(orderDecider, orderStream(orderId), { type: 'ExpireOrder', now: ctx.clock.now() }, { metadata: SYSTEM });

export const expireOffer = (ctx: ClosingDeps, orderId: number, offerId: number) =>
  ctx.handle(
    orderDecider,
    orderStream(orderId),
    { type: 'ExpireOffer', offerId, now: ctx.clock.now() },
    { metadata: SYSTEM },
  );
