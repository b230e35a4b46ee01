import { badRequest, DomainError } from '../../domain/errors.js';
import { orderStream, type OrderDeliveredData } from '../../domain/order/events.js';
import { orderDecider, type OrderState } from '../../domain/order/order.js';
import {
  orderPaymentsStream,
  paymentStream,
  type PaymentProviderEventRecordedData,
} from '../../domain/payment/events.js';
import {
  CASH_USD,
  confirmerOnOrderPaid,
  currentPaymentId,
  isLive,
  orderPaymentsDecider,
  paymentDecider,
  type Payment,
  type PaymentCommand,
  type PaymentState,
} from '../../domain/payment/payment.js';
import type { CommandDeps } from '../deps.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import { WEBHOOK_PROVIDERS } from '../../infra/payments/paymentProviders.js';
import { isValidSignature, parseWebhookEvent } from '../../infra/payments/webhooks.js';
import type { Scheduler } from '../../infra/scheduler.js';
import { paymentIdByProviderRef } from '../../projections/payments/paymentQueries.js';
import type { CommandFor } from '../handle.js';
import { derivedEventId } from '../origin.js';
import {
  processManager,
  send,
  startProcess,
  type Cause,
  type ReactionContext,
  type Send,
  type Streams,
} from '../processManager.js';
import { isStale, SUPERSEDED_REASON } from './handlers.js';

type Deps = ReactionContext & Pick<CommandDeps, 'config' | 'metrics'>;

/**
 * The payments process manager: what payments do after order events (expiry, cancellation, a method
 * change, a delivery paid in cash, a payment confirmed on the order) and what orders do after payment
 * events (a failed payment reopens the order). Every event it appends has an id derived from the event
 * that caused it, and every decision reads the streams as they are now, so running it twice (inline and
 * from the catch-up job) appends nothing the second time. Its decisions are pure (`paymentReactions`).
 */

export interface PaymentReactionState {
  /** The order, for a method change (is the current payment stale?). */
  order: OrderState;
  /** The payment the event is about: the order's current one, or the one the event names. */
  payment: PaymentState;
}

const CANCELLED_REASON = 'The order was cancelled.';
const PROVIDER_FAILED_REASON = 'The provider reported the payment as failed.';
const CASH_COLLECTED_REASON = 'Collected in cash at delivery.';

const REACTS_TO = new Set([
  'OrderExpired',
  'OrderCancelled',
  'PaymentMethodChanged',
  'OrderPaid',
  'OrderDelivered',
  'PaymentFailed',
  'PaymentExpired',
  'PaymentProviderEventRecorded',
]);

const onPayment = (paymentId: number, command: CommandFor<PaymentCommand, PaymentState>, purpose: string) =>
  send(paymentDecider, paymentStream(paymentId), command, purpose);

/**
 * The payment confirmed once the order is paid (after the provider's news, or on the order's OrderPaid,
 * which comes first): once, whoever is first, and by whom the payment's stream says (`confirmerOnOrderPaid`).
 */
const confirmOnPayment = (paymentId: number, now: Date) =>
  onPayment(
    paymentId,
    (s) =>
      s && s.status !== 'CONFIRMED'
        ? {
            type: 'ConfirmPayment',
            by: confirmerOnOrderPaid(s),
            adminId: null,
            reason: null,
            providerReference: null,
            orderPaid: true,
            now,
          }
        : null,
    'confirm',
  );

/**
 * A recorded provider event: a confirmation of the right amount confirms a live payment on the order first
 * (the arbiter: it refuses if the order moved on, and then nothing else happens), then on the payment; a
 * different amount stays recorded for an admin to reconcile and confirms nothing; a failure fails it (and
 * the order reopens from PaymentFailed).
 */
const providerEventReactions = (d: PaymentProviderEventRecordedData, p: Payment, now: Date): Send[] => {
  if (d.eventType !== 'payment.confirmed') {
    return [
      onPayment(
        p.id,
        { type: 'FailPayment', by: 'provider', adminId: null, reason: PROVIDER_FAILED_REASON, now },
        'fail',
      ),
    ];
  }
  if (d.amountCents !== p.amountCents) return [];
  return [
    send(orderDecider, orderStream(p.orderId), { type: 'ConfirmPayment', paymentId: p.id, now }, 'order-confirm'),
    confirmOnPayment(p.id, now),
  ];
};

/** Pure: the commands an order or payment event calls for, given the order and the payment now. */
export const paymentReactions = (e: Cause, { order, payment: p }: PaymentReactionState, now: Date): Send[] => {
  const data = e.data as { orderId: number; paymentId?: number };
  switch (e.type) {
    case 'OrderExpired':
      return p && isLive(p) ? [onPayment(p.id, { type: 'ExpirePayment', now }, 'expire')] : [];
    case 'OrderCancelled':
      return p && isLive(p)
        ? [
            onPayment(
              p.id,
              (s) =>
                s && isLive(s)
                  ? { type: 'FailPayment', by: 'system', adminId: null, reason: CANCELLED_REASON, now }
                  : null,
              'cancel',
            ),
          ]
        : [];
    case 'PaymentMethodChanged':
      if (!order || !p || !isStale(p, order)) return [];
      return [
        onPayment(
          p.id,
          (s) =>
            s && isStale(s, order)
              ? { type: 'FailPayment', by: 'system', adminId: null, reason: SUPERSEDED_REASON, now }
              : null,
          'supersede',
        ),
      ];
    case 'OrderPaid':
      return [confirmOnPayment(data.paymentId!, now)];
    case 'OrderDelivered':
      if ((e.data as OrderDeliveredData).paymentMethod !== CASH_USD || !p || p.method !== CASH_USD || !isLive(p))
        return [];
      return [
        onPayment(
          p.id,
          (s) =>
            s && isLive(s)
              ? {
                  type: 'ConfirmPayment',
                  by: 'system',
                  adminId: null,
                  reason: CASH_COLLECTED_REASON,
                  providerReference: null,
                  orderPaid: false,
                  now,
                }
              : null,
          'cash',
        ),
      ];
    case 'PaymentFailed':
    case 'PaymentExpired':
      return [
        send(
          orderDecider,
          orderStream(data.orderId),
          { type: 'RejectPayment', paymentId: data.paymentId!, now },
          'reopen',
        ),
      ];
    case 'PaymentProviderEventRecorded':
      return p && isLive(p) ? providerEventReactions(e.data as PaymentProviderEventRecordedData, p, now) : [];
    default:
      return [];
  }
};

/**
 * I/O: the payment the event is about (the event names it, or
 * the order's index does) and, for a method change, the order.
 */
const reactionState = async (streams: Streams, e: Cause): Promise<PaymentReactionState> => {
  const data = e.data as { orderId: number; paymentId?: number };
  const nothing: PaymentReactionState = { order: null, payment: null };
  switch (e.type) {
    case 'PaymentFailed':
    case 'PaymentExpired':
      return nothing;
    case 'OrderPaid':
    case 'PaymentProviderEventRecorded':
      return { order: null, payment: await streams.read(paymentStream(data.paymentId!), paymentDecider) };
    default: {
      const index = await streams.read(orderPaymentsStream(data.orderId), orderPaymentsDecider);
      const currentId = currentPaymentId(index);
      const payment = currentId === null ? null : await streams.read(paymentStream(currentId), paymentDecider);
      const order =
        e.type === 'PaymentMethodChanged' ? await streams.read(orderStream(data.orderId), orderDecider) : null;
      return { order, payment };
    }
  }
};

/**
 * Inline, the one handler runs it after every append to a payment stream (a provider's event, a failed or
 * expired payment reopening its order). The catch-up half reacts to the rest (order events: timers,
 * cancellations, method changes, deliveries) and to what a crash between two appends left, such as a
 * webhook recorded but not yet applied; it trails the head so as not to race an inline half still in
 * flight.
 */
const paymentProcess = processManager<ReactionContext, PaymentReactionState>({
  name: 'payment-reactions',
  reactsTo: (e) => REACTS_TO.has(e.type),
  stateOf: reactionState,
  decide: paymentReactions,
});

/**
 * POST /payments/webhook/{provider}: verify, then record the provider's event on the payment's stream (once
 * per provider event id: its event id derives from it); the one handler applies it inline (the payments
 * process, above). A redelivery records nothing; a delivery that crashed between recording and applying is
 * applied by the catch-up.
 */
export const receiveWebhook = async (
  ctx: Deps,
  input: { provider: string; rawBody: Buffer | undefined; signature: string | undefined; requestId?: string },
): Promise<number> => {
  if (!WEBHOOK_PROVIDERS.includes(input.provider))
    throw badRequest('UnsupportedProvider', `Unsupported payment provider: ${input.provider}.`);
  if (!input.rawBody || input.rawBody.length === 0)
    throw new DomainError('internal', 'EmptyWebhookBody', 'The webhook body is empty.');
  if (!isValidSignature(input.rawBody, input.signature, ctx.config.PAYMENT_WEBHOOK_SECRET)) {
    ctx.metrics.webhooksRefused.inc({ webhook: `payment/${input.provider}` });
    throw badRequest('InvalidWebhook', 'Invalid webhook signature.');
  }
  const event = parseWebhookEvent(input.rawBody);
  if (!event) throw badRequest('InvalidWebhook', 'The body is not a payment event.');
  const paymentId = await paymentIdByProviderRef(ctx.db, input.provider, event.data.reference);
  if (paymentId === null) throw badRequest('InvalidWebhook', 'Unknown payment reference.');
  const recordedId = derivedEventId(`webhook/${input.provider}`, event.id);
  const metadata: EventMetadata = {
    actor: { id: null, role: 'PROVIDER' },
    ...(input.requestId ? { correlationId: input.requestId } : {}),
  };
  const recorded = await ctx.handle(
    paymentDecider,
    paymentStream(paymentId),
    {
      type: 'RecordProviderEvent',
      provider: input.provider,
      providerEventId: event.id,
      eventType: event.type,
      amountCents: event.data.amount_cents,
      now: ctx.clock.now(),
    },
    { metadata, eventIds: () => recordedId },
  );
  return recorded.position;
};

export const startPaymentReactions = (ctx: Deps & { scheduler: Pick<Scheduler, 'register'> }) =>
  startProcess(ctx, paymentProcess, { everyMs: 2000, trailHead: true, inline: ['payment'] });
