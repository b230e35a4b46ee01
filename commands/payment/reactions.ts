import { badRequest, DomainError } from '../../domain/errors.js';
import type { OrderDeliveredData } from '../../domain/order/events.js';
import { orderPaymentsStream, paymentStream, type PaymentProviderEventRecordedData } from '../../domain/payment/events.js';
import { CASH_USD, currentPaymentId, isLive, orderPaymentsAggregate, paymentDecider } from '../../domain/payment/payment.js';
import type { AppContext } from '../../infra/context.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import type { ScheduledJob } from '../../infra/scheduler.js';
import { WEBHOOK_PROVIDERS } from '../../infra/payments/paymentProviders.js';
import { isValidSignature, parseWebhookEvent } from '../../infra/payments/webhooks.js';
import { paymentIdByProviderRef } from '../../projections/payments/paymentQueries.js';
import { loadState } from '../handle.js';
import { processManager } from '../processManager.js';
import { rejectPayment as rejectOrderPayment } from '../order/payment.js';
import { causedBy, derivedEventId } from '../origin.js';
import { confirmLivePayment, failPayment, isStale, loadOrder, loadPayment, SUPERSEDED_REASON } from './handlers.js';

/**
 * The payments process manager: what payments do after order events (expiry, cancellation, a method
 * change, a delivery paid in cash, a payment confirmed on the order) and what orders do after payment
 * events (a failed payment reopens the order). Every event it appends has an id derived from the event
 * that caused it, and every decision reads the streams as they are now, so running it twice (inline and
 * from the catch-up job) appends nothing the second time.
 */

interface Cause {
  eventId: string;
  type: string;
  data: unknown;
}

const currentPaymentOf = async (ctx: AppContext, orderId: number) => {
  const index = await loadState(ctx.store, orderPaymentsStream(orderId), orderPaymentsAggregate);
  const id = currentPaymentId(index.state);
  return id === null ? null : loadPayment(ctx, id);
};

const CANCELLED_REASON = 'The order was cancelled.';
const PROVIDER_FAILED_REASON = 'The provider reported the payment as failed.';

/** Applies a recorded provider event: a confirmation of the right amount confirms a live payment; a failure fails it. */
export const applyProviderEvent = async (ctx: AppContext, cause: Cause & { data: PaymentProviderEventRecordedData }): Promise<number> => {
  const d = cause.data;
  const p = await loadPayment(ctx, d.paymentId);
  if (!p || !isLive(p)) return 0;
  const metadata = causedBy(cause);
  if (d.eventType === 'payment.confirmed') {
    if (d.amountCents !== p.amountCents) {
      // Recorded on the payment's stream for an admin to reconcile; it confirms nothing.
      ctx.logger.warn({ paymentId: p.id, expected: p.amountCents, received: d.amountCents }, 'provider confirmed a different amount');
      return 0;
    }
    return (await confirmLivePayment(ctx, p.id, { by: 'provider', adminId: null, reason: null, providerReference: null }, metadata)) ?? 0;
  }
  return failPayment(ctx, p.id, { by: 'provider', adminId: null, reason: PROVIDER_FAILED_REASON }, metadata, (i) => derivedEventId(cause.eventId, `fail/${i}`));
};

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

/** Returns the global position of the last event it appended (0 when none). */
export const reactToEvent = async (ctx: AppContext, e: Cause): Promise<number> => {
  const data = e.data as { orderId: number; paymentId?: number };
  const ids = (purpose: string) => (i: number) => derivedEventId(e.eventId, `${purpose}/${i}`);
  const metadata = causedBy(e);
  const now = ctx.clock.now();
  switch (e.type) {
    case 'OrderExpired': {
      const p = await currentPaymentOf(ctx, data.orderId);
      if (!p || !isLive(p)) return 0;
      return (await ctx.handle(paymentDecider, paymentStream(p.id), () => ({ type: 'ExpirePayment', now }), { metadata, eventIds: ids('expire') })).position;
    }
    case 'OrderCancelled': {
      const p = await currentPaymentOf(ctx, data.orderId);
      if (!p || !isLive(p)) return 0;
      return (await ctx.handle(paymentDecider, paymentStream(p.id), (s) => (s && isLive(s) ? { type: 'FailPayment', by: 'system', adminId: null, reason: CANCELLED_REASON, now } : null), { metadata, eventIds: ids('cancel') })).position;
    }
    case 'PaymentMethodChanged': {
      const order = await loadOrder(ctx, data.orderId);
      const p = await currentPaymentOf(ctx, data.orderId);
      if (!order || !p || !isStale(p, order)) return 0;
      return (await ctx.handle(paymentDecider, paymentStream(p.id), (s) => (s && isStale(s, order) ? { type: 'FailPayment', by: 'system', adminId: null, reason: SUPERSEDED_REASON, now } : null), { metadata, eventIds: ids('supersede') })).position;
    }
    case 'OrderPaid': {
      const paymentId = data.paymentId!;
      return (
        await ctx.handle(paymentDecider, paymentStream(paymentId), (s) => (s && s.status !== 'CONFIRMED' ? { type: 'ConfirmPayment', by: 'system', adminId: null, reason: null, providerReference: null, orderPaid: true, now } : null), { metadata, eventIds: ids('confirm') })
      ).position;
    }
    case 'OrderDelivered': {
      if ((e.data as OrderDeliveredData).paymentMethod !== CASH_USD) return 0;
      const p = await currentPaymentOf(ctx, data.orderId);
      if (!p || p.method !== CASH_USD || !isLive(p)) return 0;
      return (
        await ctx.handle(paymentDecider, paymentStream(p.id), (s) => (s && isLive(s) ? { type: 'ConfirmPayment', by: 'system', adminId: null, reason: 'Collected in cash at delivery.', providerReference: null, orderPaid: false, now } : null), { metadata, eventIds: ids('cash') })
      ).position;
    }
    case 'PaymentFailed':
    case 'PaymentExpired':
      return (await rejectOrderPayment(ctx, data.orderId, data.paymentId!, metadata)).position;
    case 'PaymentProviderEventRecorded':
      return applyProviderEvent(ctx, e as Cause & { data: PaymentProviderEventRecordedData });
    default:
      return 0;
  }
};

/**
 * POST /payments/webhook/{provider}: verify, record the provider's event on the payment's stream (once
 * per provider event id: its event id derives from it), then apply it. A redelivery records nothing and
 * applies again, which completes a delivery that crashed half-way and changes nothing otherwise.
 */
export const receiveWebhook = async (
  ctx: AppContext,
  input: { provider: string; rawBody: Buffer | undefined; signature: string | undefined; requestId?: string },
): Promise<number> => {
  if (!WEBHOOK_PROVIDERS.includes(input.provider)) throw badRequest('UnsupportedProvider', `Unsupported payment provider: ${input.provider}.`);
  if (!input.rawBody || input.rawBody.length === 0) throw new DomainError('internal', 'EmptyWebhookBody', 'The webhook body is empty.');
  if (!isValidSignature(input.rawBody, input.signature, ctx.config.PAYMENT_WEBHOOK_SECRET)) throw badRequest('InvalidWebhook', 'Invalid webhook signature.');
  const event = parseWebhookEvent(input.rawBody);
  if (!event) throw badRequest('InvalidWebhook', 'The body is not a payment event.');
  const paymentId = await paymentIdByProviderRef(ctx.db, input.provider, event.data.reference);
  if (paymentId === null) throw badRequest('InvalidWebhook', 'Unknown payment reference.');
  const recordedId = derivedEventId(`webhook/${input.provider}`, event.id);
  const metadata: EventMetadata = { actor: { id: null, role: 'PROVIDER' }, ...(input.requestId ? { correlationId: input.requestId } : {}) };
  const recorded = await ctx.handle(paymentDecider, paymentStream(paymentId), () => ({ type: 'RecordProviderEvent', provider: input.provider, providerEventId: event.id, eventType: event.type, amountCents: event.data.amount_cents, now: ctx.clock.now() }), { metadata, eventIds: () => recordedId });
  const applied = await applyProviderEvent(ctx, {
    eventId: recordedId,
    type: 'PaymentProviderEventRecorded',
    data: { paymentId, provider: input.provider, providerEventId: event.id, eventType: event.type, amountCents: event.data.amount_cents, receivedAt: ctx.clock.now().toISOString() },
  });
  return Math.max(recorded.position, applied);
};

/**
 * The catch-up half reacts to what inline handlers did not (the order's timers, other areas' commands, a
 * crash between two appends); it trails the head so as not to race a request's inline half still in flight.
 */
const paymentProcess = processManager({
  name: 'payment-reactions',
  reactsTo: (e) => REACTS_TO.has(e.type),
  react: reactToEvent,
});

export const paymentReactionsJob = (ctx: AppContext, everyMs = 2000): ScheduledJob => paymentProcess.catchUpJob(ctx, { everyMs, trailHead: true });
