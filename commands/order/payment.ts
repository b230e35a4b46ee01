import { creditDecider, creditKindOf, creditUsableForOrder } from '../../domain/credit/credit.js';
import { creditStream } from '../../domain/credit/events.js';
import type { Actor } from '../../domain/actor.js';
import { asOwner } from '../../domain/order/access.js';
import { orderStream } from '../../domain/order/events.js';
import { orderDecider } from '../../domain/order/order.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import type { CommandDeps } from '../deps.js';
import { loadState } from '../handle.js';
import { SYSTEM } from '../origin.js';
import { assertSelectableMethod } from './create.js';

/** How an order is paid: the client's method, and the payments area's report, rejection and confirmation. */

/** PATCH /orders/{id}/payment-method. */
export const changePaymentMethod = async (
  ctx: Pick<CommandDeps, 'handle' | 'clock' | 'store' | 'reference'>,
  actor: Actor,
  input: { orderId: number; paymentMethod: string; paymentFormId: number | null | undefined },
  metadata?: EventMetadata,
) => {
  const loaded = await ctx.handle.load(orderDecider, orderStream(input.orderId), (s) => asOwner(s, actor));
  const order = asOwner(loaded.state, actor);
  const paymentFormId = await assertSelectableMethod(ctx, input.paymentMethod, input.paymentFormId);
  const credit = await loadState(ctx.store, creditStream(actor.id), creditDecider);
  return ctx.handle(
    orderDecider,
    orderStream(input.orderId),
    (s) => ({
      type: 'ChangePaymentMethod',
      clientId: asOwner(s, actor).clientId,
      paymentMethod: input.paymentMethod,
      paymentFormId,
      creditAvailableCents: creditUsableForOrder(credit.state, creditKindOf(order.surplusListingId), order.id),
      now: ctx.clock.now(),
    }),
    { metadata, loaded, read: [[creditStream(actor.id), credit]] },
  );
};

/**
 * For the payments area: the order's payment was reported (manual form), rejected, or confirmed. Each is
 * idempotent for the same payment id; ConfirmPayment moves WAITING_FOR_PAYMENT to CONFIRMED.
 */
const paymentOutcome =
  (type: 'ReportPayment' | 'ConfirmPayment') =>
  (ctx: Pick<CommandDeps, 'handle' | 'clock'>, orderId: number, paymentId: number, metadata: EventMetadata = SYSTEM) =>
    ctx.handle(orderDecider, orderStream(orderId), { type, paymentId, now: ctx.clock.now() }, { metadata });

export const reportPayment = paymentOutcome('ReportPayment');
export const confirmPayment = paymentOutcome('ConfirmPayment');
