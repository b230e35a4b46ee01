import {
  creditDecider,
  creditKindOf,
  creditUsableForOrder,
  initialState as noCredit,
  type CreditState,
} from '../../domain/credit/credit.js';
import { creditStream } from '../../domain/credit/events.js';
import { driverDecider } from '../../domain/driver/driver.js';
import { driverStream } from '../../domain/driver/events.js';
import { orderStream, type OrderDeliveredData } from '../../domain/order/events.js';
import { orderDecider, type Order, type OrderState } from '../../domain/order/order.js';
import { UNDELIVERED_END } from '../../domain/order/rules.js';
import type { Scheduler } from '../../infra/scheduler.js';
import {
  processManager,
  send,
  startProcess,
  type Cause,
  type ReactionContext,
  type Send,
  type Streams,
} from '../processManager.js';

/**
 * The order process manager: what other aggregates must do after an order event.
 * - Credit follows the order's current pricing: redeemed at creation, re-applied after an accepted offer or a
 *   method change, refunded on cancellation or expiry. It reconciles against the order's state now (not the
 *   event's), so replaying old events in any order converges on the same balances. When the credit the
 *   order was priced with is gone (spent or debited meanwhile), the order is priced again with what is
 *   usable, and that change reconciles once more.
 * - A delivery draws actualLiters from the driver's tank (the driver stream, through identity's decider).
 *
 * The one handler runs it inline after every order command, on the state just decided (the response then
 * reflects it), and a scheduler job replays the log behind it. Event ids derive from the causing event's
 * id, so the second run appends nothing.
 */

const CREDIT_TRIGGERS = new Set([
  'OrderCreated',
  'OfferAccepted',
  'PaymentMethodChanged',
  'OrderCancelled',
  'OrderExpired',
]);

export interface OrderReactionState {
  order: OrderState;
  /** The order's client's credit (empty for a delivery, which needs none). */
  credit: CreditState;
}

/** Whether RedeemCredit of `amountCents` would be refused for want of credit (the same rule as the credit decider). */
const redemptionRefused = (credit: CreditState, order: Order, amountCents: number): boolean => {
  const previous = credit.redemptions[order.id];
  if (
    previous
      ? previous.amountCents === amountCents && previous.kind === creditKindOf(order.surplusListingId)
      : amountCents === 0
  )
    return false;
  return amountCents > creditUsableForOrder(credit, creditKindOf(order.surplusListingId), order.id);
};

const reconcileCredit = (order: Order, credit: CreditState, now: Date): Send[] => {
  const clientId = order.clientId;
  if (UNDELIVERED_END.includes(order.status)) {
    const reason = order.status === 'CANCELLED' ? 'ORDER_CANCELLED' : 'ORDER_EXPIRED';
    return [
      send(
        creditDecider,
        creditStream(clientId),
        { type: 'RefundCredit', clientId, orderId: order.id, reason, now },
        'credit',
      ),
    ];
  }
  const amountCents = order.pricing.promoCreditCents;
  if (redemptionRefused(credit, order, amountCents)) {
    const usable = creditUsableForOrder(credit, creditKindOf(order.surplusListingId), order.id);
    const reprice = {
      type: 'ChangePaymentMethod',
      clientId,
      paymentMethod: order.paymentMethod,
      paymentFormId: order.paymentFormId,
      creditAvailableCents: usable,
      now,
    } as const;
    return [send(orderDecider, orderStream(order.id), reprice, 'reprice')];
  }
  return [
    send(
      creditDecider,
      creditStream(clientId),
      {
        type: 'RedeemCredit',
        clientId,
        orderId: order.id,
        kind: creditKindOf(order.surplusListingId),
        amountCents,
        now,
      },
      'credit',
    ),
  ];
};

const drawTank = (d: OrderDeliveredData, now: Date): Send =>
  send(
    driverDecider,
    driverStream(d.driverId),
    (s) => ({ type: 'UpdateTank', availableLiters: Math.max(0, s.availableLiters - d.actualLiters), now }),
    'tank',
  );

/** Pure: the commands an order event calls for, given the order and its client's credit now. */
export const orderReactions = (e: Cause, { order, credit }: OrderReactionState, now: Date): Send[] => {
  if (e.type === 'OrderDelivered') return [drawTank(e.data as OrderDeliveredData, now)];
  if (!CREDIT_TRIGGERS.has(e.type) || !order) return [];
  return reconcileCredit(order, credit, now);
};

const orderIdOf = (e: Cause): number => (e.data as { orderId: number }).orderId;

const reactionState = async (streams: Streams, e: Cause): Promise<OrderReactionState> => {
  if (e.type === 'OrderDelivered') return { order: null, credit: noCredit };
  const order = await streams.read(orderStream(orderIdOf(e)), orderDecider);
  const credit = order ? await streams.read(creditStream(order.clientId), creditDecider) : noCredit;
  return { order, credit };
};

/** Its catch-up half heals a crash between an order's append and the reaction to it. */
const orderProcess = processManager<ReactionContext, OrderReactionState>({
  name: 'order-reactions',
  categories: ['order'],
  reactsTo: (e) => CREDIT_TRIGGERS.has(e.type) || e.type === 'OrderDelivered',
  stateOf: reactionState,
  decide: orderReactions,
});

export const startOrderReactions = (ctx: ReactionContext & { scheduler: Pick<Scheduler, 'register'> }) =>
  startProcess(ctx, orderProcess, { everyMs: 2000, inline: true });
