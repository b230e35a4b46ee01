import {
  badRequest,
  conflict,
  DomainError,
  forbidden,
  notFound,
  unprocessable,
  validationError,
  type ErrorId,
} from '../../domain/errors.js';
import { orderStream } from '../../domain/order/events.js';
import { orderDecider, type Order, type OrderState } from '../../domain/order/order.js';
import { CONFIRMED_ONWARD, DELIVERABLE } from '../../domain/order/rules.js';
import { orderPaymentsStream, paymentStream, type PaymentCurrency } from '../../domain/payment/events.js';
import {
  CASH_USD,
  EXCHANGE_PAY,
  PAYPROV_DI,
  currentPaymentId,
  isActionable,
  orderPaymentsDecider,
  paymentDecider,
  type OrderPayments,
  type Payment,
  type RequestPayment,
  type PaymentState,
} from '../../domain/payment/payment.js';
import { PAYMENT_FORM } from '../../domain/pricing.js';
import type { Actor } from '../../domain/actor.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import { PaymentProviderError, PROVIDER_OF_METHOD, type DebitPayer } from '../../infra/payments/paymentProviders.js';
import { checkFormValues, type PaymentForm, type ReportedValue } from '../../stores/paymentForms/paymentFormQueries.js';
import type { CommandDeps } from '../deps.js';
import { loadState, type Loaded } from '../handle.js';
import { confirmPayment as confirmOrderPayment, reportPayment as reportOrderPayment } from '../order/payment.js';
import { nextId } from '../origin.js';

/**
 * Payment command handlers. Two streams take part in every payment: the payment's own and the order's.
 * The order stream is the arbiter: a payment is confirmed on the order first (ConfirmPayment, serialised
 * against expiry and method changes), then on the payment; a failure goes the other way round. A crash
 * between the two is healed by the payments process manager (commands/payment/reactions.ts).
 */

type PaymentDeps = Pick<CommandDeps, 'handle' | 'clock' | 'store' | 'db' | 'reference' | 'providers' | 'settle'> & {
  config: Pick<CommandDeps['config'], 'PAYMENT_WINDOW_MINUTES'>;
};

/** The order a payment is for, as its stream holds it now. */
export const loadOrder = async (ctx: PaymentDeps, orderId: number): Promise<OrderState> =>
  (await loadState(ctx.store, orderStream(orderId), orderDecider)).state;

export const loadPayment = async (ctx: PaymentDeps, paymentId: number): Promise<PaymentState> =>
  (await loadState(ctx.store, paymentStream(paymentId), paymentDecider)).state;

/**
 * The global position of a stream's last event (0 for none): what a reader settles on before answering
 * about a payment or order that another request may just have written.
 */
export const streamHead = async (ctx: PaymentDeps, streamId: string): Promise<number> =>
  (await ctx.store.readStream(streamId)).at(-1)?.globalPosition ?? 0;

/**
 * Whether the order has a charge an intent may be opened for now:
 * - online and form methods while the order waits for payment;
 * - a fully promoted order once accepted (a zero intent, confirmed at once);
 * - cash once accepted and until delivery (collected by the driver; listed for review, not actionable).
 */
const payable = (order: Order): boolean => {
  if (order.pricing.clientChargedCents === 0) return CONFIRMED_ONWARD.includes(order.status);
  if (order.paymentMethod === CASH_USD) return DELIVERABLE.includes(order.status);
  return order.status === 'WAITING_FOR_PAYMENT';
};

/** A pending intent that no longer describes the order's charge (the method or the credit changed). */
export const isStale = (p: Payment, order: Order): boolean =>
  p.status === 'PENDING' &&
  (p.method !== order.paymentMethod ||
    p.paymentFormId !== order.paymentFormId ||
    p.amountCents !== order.pricing.clientChargedCents);

export const SUPERSEDED_REASON = "The order's payment method or amount changed.";

export interface Ensured {
  payment: Payment;
  position: number;
}

const currencyOf = (form: PaymentForm | null): PaymentCurrency => form?.currency ?? 'USD';

/** The order's live payment, or the id to open one under and the index as read. */
type Attempt =
  | { payment: Payment; position: number }
  | { paymentId: number; fresh: boolean; after: number | null; index: Loaded<OrderPayments>; position: number };

const ATTEMPTS = 8;

/**
 * Reads the order's index of attempts: the current payment when it still describes the order's charge (a
 * stale one is failed first), or the id the next one opens under: the current id when the index names a
 * payment that was never created (a crash in between), a new one otherwise.
 */
const currentOrNext = async (ctx: PaymentDeps, order: Order, metadata: EventMetadata): Promise<Attempt> => {
  let position = 0;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const index = await loadState(ctx.store, orderPaymentsStream(order.id), orderPaymentsDecider);
    const currentId = currentPaymentId(index.state);
    const current = currentId === null ? null : await loadPayment(ctx, currentId);
    if (current && isStale(current, order)) {
      const now = ctx.clock.now();
      const r = await ctx.handle(
        paymentDecider,
        paymentStream(current.id),
        (s) =>
          s && isStale(s, order)
            ? { type: 'FailPayment', by: 'system', adminId: null, reason: SUPERSEDED_REASON, now }
            : null,
        { metadata },
      );
      position = Math.max(position, r.position);
      continue;
    }
    if (current && current.status !== 'FAILED') return { payment: current, position };
    if (!payable(order)) throw unprocessable('Unprocessable', 'The order is not waiting for payment.');
    if (currentId !== null && !current)
      return { paymentId: currentId, fresh: false, after: currentId, index, position };
    return { paymentId: await nextId(ctx.db, 'payment_id_seq'), fresh: true, after: currentId, index, position };
  }
  throw conflict('Conflict', 'The payment is busy; try again.');
};

/**
 * The order's current payment, opened when there is none (or the last one failed or went stale). The
 * provider is asked for the intent after the index is read and before anything is written, so its refusal
 * leaves no trace. The order's index stream (`orderpayments-<orderId>`) names the attempts, so of two
 * concurrent callers one opens the payment: for the other the index has moved on, and it reads again and
 * finds the winner's.
 */
export const ensurePayment = async (ctx: PaymentDeps, order: Order, metadata: EventMetadata): Promise<Ensured> => {
  let position = 0;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const next = await currentOrNext(ctx, order, metadata);
    position = Math.max(position, next.position);
    if ('payment' in next) return { payment: next.payment, position };
    const request = await paymentRequestFor(ctx, order, next.paymentId);
    if (next.fresh) {
      const open = {
        type: 'OpenPaymentAttempt',
        orderId: order.id,
        paymentId: next.paymentId,
        after: next.after,
        now: ctx.clock.now(),
      } as const;
      const opened = await ctx.handle(orderPaymentsDecider, orderPaymentsStream(order.id), open, {
        metadata,
        loaded: next.index,
      });
      if (opened.events.length === 0) continue;
      position = Math.max(position, opened.position);
    }
    try {
      const created = await ctx.handle(paymentDecider, paymentStream(next.paymentId), request, { metadata });
      return { payment: created.state!, position: Math.max(position, created.position) };
    } catch (err) {
      // Another caller created it meanwhile: read again and answer theirs.
      if (!(err instanceof DomainError && err.code === 'Conflict') || attempt === ATTEMPTS) throw err;
    }
  }
  throw conflict('Conflict', 'The payment is busy; try again.');
};

const paymentRequestFor = async (ctx: PaymentDeps, order: Order, paymentId: number): Promise<RequestPayment> => {
  const now = ctx.clock.now();
  const method = order.paymentMethod;
  const form =
    method === PAYMENT_FORM && order.paymentFormId !== null
      ? await ctx.reference.paymentForm(order.paymentFormId)
      : null;
  if (method === PAYMENT_FORM && !form) throw unprocessable('Unprocessable', 'The order has no payment form.');
  const currency = currencyOf(form);
  const rate =
    currency === 'VES' ? ((await ctx.reference.officialRate(now))?.rateCents ?? order.officialRateCents) : null;
  const amountCents = order.pricing.clientChargedCents;
  let checkout: { providerRef: string; checkoutUrl: string } | null = null;
  if (method === EXCHANGE_PAY && amountCents > 0) {
    try {
      checkout = await ctx.providers.payments.checkout.createIntent({
        paymentId,
        orderId: order.id,
        amountCents,
        currency,
      });
    } catch (err) {
      if (err instanceof PaymentProviderError)
        throw badRequest('PaymentError', 'The payment provider could not create the intent.');
      throw err;
    }
  }
  const expiresAt = order.paymentExpiresAt
    ? new Date(order.paymentExpiresAt)
    : new Date(now.getTime() + ctx.config.PAYMENT_WINDOW_MINUTES * 60_000);
  return {
    type: 'RequestPayment',
    paymentId,
    orderId: order.id,
    userId: order.clientId,
    method,
    provider: PROVIDER_OF_METHOD[method] ?? method.toLowerCase(),
    paymentFormId: method === PAYMENT_FORM ? order.paymentFormId : null,
    internalType: form?.internalName ?? null,
    currency,
    amountCents,
    officialRateCents: rate,
    platformRevenueCents: order.pricing.platformRevenueCents,
    solidaryFundCents: order.pricing.solidaryFundCents,
    providerRef: checkout?.providerRef ?? null,
    checkoutUrl: checkout?.checkoutUrl ?? null,
    expiresAt,
    now,
  };
};

const isOwner = (order: Order, actor: Actor): boolean => actor.role === 'CLIENT' && order.clientId === actor.id;

/** POST /orders/{id}/payment: create or refresh the order's intent. */
export const requestPayment = async (
  ctx: PaymentDeps,
  actor: Actor,
  orderId: number,
  methodCode: string,
  metadata: EventMetadata,
) => {
  const order = await loadOrder(ctx, orderId);
  if (!order || !isOwner(order, actor)) throw notFound('OrderNotFound', 'Order not found.');
  const method = await ctx.reference.paymentMethod(methodCode);
  if (!method) throw badRequest('PaymentError', 'Unknown payment method.');
  if (method.code !== order.paymentMethod) {
    throw badRequest(
      'PaymentError',
      `The order is paid with ${order.paymentMethod}; change it with PATCH /orders/{orderId}/payment-method.`,
    );
  }
  return ensurePayment(ctx, order, metadata);
};

/** The interactive payment routes (prepare, report, forms): the order must be the caller's. */
const ownOrder = (order: OrderState, actor: Actor, notOwned: 'forbidden' | 'not_found'): Order => {
  if (!order) throw notFound('NotFound', 'Order not found.');
  if (!isOwner(order, actor))
    throw notOwned === 'forbidden'
      ? forbidden('Forbidden', 'This is not your order.')
      : notFound('NotFound', 'Order not found.');
  return order;
};

const assertWaiting = (order: Order, method: string): void => {
  if (order.paymentMethod !== method) throw unprocessable('Unprocessable', `The order is not paid with ${method}.`);
  if (order.status !== 'WAITING_FOR_PAYMENT')
    throw unprocessable('Unprocessable', 'The order is not waiting for payment.');
};

const providerFailure = (err: unknown): never => {
  if (err instanceof PaymentProviderError) throw badRequest('PaymentError', err.message);
  throw err;
};

/** Runs an order command for a payment; an order that refuses (moved on meanwhile) is `refusal`. */
const onOrder = async <T>(run: () => Promise<T>, refusal: () => DomainError): Promise<T> => {
  try {
    return await run();
  } catch (err) {
    if (err instanceof DomainError && (err.kind === 'conflict' || err.kind === 'not_found')) throw refusal();
    throw err;
  }
};

/** POST /orders/{id}/payment/prepare: immediate debit step 1, the payer's bank sends an OTP. */
export const prepareDebit = async (
  ctx: PaymentDeps,
  actor: Actor,
  orderId: number,
  payer: DebitPayer,
  metadata: EventMetadata,
) => {
  const order = ownOrder(await loadOrder(ctx, orderId), actor, 'forbidden');
  assertWaiting(order, PAYPROV_DI);
  const ensured = await ensurePayment(ctx, order, metadata);
  const p = ensured.payment;
  if (p.status !== 'PENDING') throw unprocessable('Unprocessable', `The payment is ${p.status}.`);
  const { providerRef } = await ctx.providers.payments.immediateDebit
    .requestOtp({ paymentId: p.id, amountCents: p.amountCents, payer })
    .catch(async (err) => {
      await ctx.settle(ensured.position);
      return providerFailure(err);
    });
  const r = await ctx.handle(
    paymentDecider,
    paymentStream(p.id),
    () => ({ type: 'PreparePayment', providerRef, ...payer, now: ctx.clock.now() }),
    { metadata },
  );
  return { paymentId: p.id, position: Math.max(ensured.position, r.position) };
};

/**
 * POST /orders/{id}/payment/report: immediate debit step 2. The order holds its payment window first
 * (ReportPayment), so the debit cannot race the expiry; a declined debit fails the payment and reopens
 * the order; an unanswered one stays PROCESSING for the webhook or an admin.
 */
export const reportDebit = async (
  ctx: PaymentDeps,
  actor: Actor,
  orderId: number,
  payer: DebitPayer & { otp: string },
  metadata: EventMetadata,
) => {
  const order = ownOrder(await loadOrder(ctx, orderId), actor, 'forbidden');
  assertWaiting(order, PAYPROV_DI);
  const ensured = await ensurePayment(ctx, order, metadata);
  const p = ensured.payment;
  if (p.status !== 'PENDING' || !p.prepared)
    throw unprocessable(
      'Unprocessable',
      p.status === 'PENDING' ? 'Request the bank OTP first (prepare).' : `The payment is ${p.status}.`,
    );
  const providerRef = p.prepared.providerRef;
  let position = ensured.position;
  const held = await onOrder(
    () => reportOrderPayment(ctx, order.id, p.id, metadata),
    () => unprocessable('Unprocessable', 'The order is not waiting for payment.'),
  );
  position = Math.max(position, held.position);
  const reported = await ctx.handle(
    paymentDecider,
    paymentStream(p.id),
    () => ({ type: 'ReportPayment', reference: null, values: [], officialRateCents: null, now: ctx.clock.now() }),
    { metadata },
  );
  position = Math.max(position, reported.position);
  let result: { status: 'CONFIRMED' | 'PENDING'; reference: string };
  try {
    result = await ctx.providers.payments.immediateDebit.debit({
      providerRef,
      otp: payer.otp,
      amountCents: p.amountCents,
      payer,
    });
  } catch (err) {
    if (!(err instanceof PaymentProviderError)) throw err;
    if (err.kind === 'declined') {
      const failed = await failPayment(ctx, p.id, { by: 'provider', adminId: null, reason: err.message }, metadata);
      await ctx.settle(Math.max(position, failed));
    } else {
      await ctx.settle(position);
    }
    throw badRequest('PaymentError', err.message);
  }
  if (result.status === 'CONFIRMED') {
    position = Math.max(
      position,
      await settleConfirmed(
        ctx,
        p.id,
        { by: 'provider', adminId: null, reason: null, providerReference: result.reference },
        metadata,
      ),
    );
  }
  return { paymentId: p.id, position };
};

/**
 * Confirms a live payment: the order first (the arbiter), then the payment. Returns the last position, or
 * null when the order refused (it moved on: expired, cancelled, another payment).
 */
export const confirmLivePayment = async (
  ctx: PaymentDeps,
  paymentId: number,
  how: {
    by: 'provider' | 'admin' | 'system';
    adminId: number | null;
    reason: string | null;
    providerReference: string | null;
  },
  metadata: EventMetadata,
): Promise<number | null> => {
  const p = await loadPayment(ctx, paymentId);
  if (!p) return null;
  if (p.status === 'CONFIRMED') return 0;
  let orderPosition: number;
  try {
    orderPosition = (await confirmOrderPayment(ctx, p.orderId, p.id, metadata)).position;
  } catch (err) {
    if (err instanceof DomainError && (err.kind === 'conflict' || err.kind === 'not_found')) return null;
    throw err;
  }
  const r = await ctx.handle(
    paymentDecider,
    paymentStream(p.id),
    () => ({ type: 'ConfirmPayment', ...how, orderPaid: true, now: ctx.clock.now() }),
    { metadata },
  );
  return Math.max(orderPosition, r.position);
};

const settleConfirmed = async (
  ctx: PaymentDeps,
  paymentId: number,
  how: Parameters<typeof confirmLivePayment>[2],
  metadata: EventMetadata,
): Promise<number> => (await confirmLivePayment(ctx, paymentId, how, metadata)) ?? 0;

/**
 * Fails a live payment; the payments process, inline on the payment stream, then reopens the order's method
 * change and expiry (RejectPayment).
 */
export const failPayment = async (
  ctx: PaymentDeps,
  paymentId: number,
  how: { by: 'provider' | 'admin' | 'system'; adminId: number | null; reason: string },
  metadata: EventMetadata,
  eventIds?: (index: number) => string,
): Promise<number> => {
  const r = await ctx.handle(
    paymentDecider,
    paymentStream(paymentId),
    () => ({ type: 'FailPayment', ...how, now: ctx.clock.now() }),
    { metadata, eventIds },
  );
  return r.position;
};

/** GET /orders/{id}/payment/form: the order's form and what is due (bolivars at the current rate for VES). */
export const paymentFormOfOrder = async (ctx: PaymentDeps, actor: Actor, orderId: number) => {
  const order = ownOrder(await loadOrder(ctx, orderId), actor, 'not_found');
  assertWaiting(order, PAYMENT_FORM);
  const form = order.paymentFormId === null ? null : await ctx.reference.paymentForm(order.paymentFormId);
  if (!form) throw unprocessable('Unprocessable', 'The order has no payment form.');
  const rateCents =
    form.currency === 'VES'
      ? ((await ctx.reference.officialRate(ctx.clock.now()))?.rateCents ?? order.officialRateCents)
      : null;
  return { order, form, rateCents };
};

/**
 * POST /orders/{id}/payment/form: report a manual payment. Values are checked per field index before
 * anything is written; the order holds its payment window (ReportPayment) before the payment becomes
 * PROCESSING with the rate of now fixed on it.
 */
export const reportFormPayment = async (
  ctx: PaymentDeps,
  actor: Actor,
  orderId: number,
  values: ReportedValue[],
  metadata: EventMetadata,
) => {
  const { order, form } = await paymentFormOfOrder(ctx, actor, orderId);
  const { fieldErrors, accepted } = checkFormValues(form.fields, values);
  if (Object.keys(fieldErrors).length > 0) throw validationError(fieldErrors);
  const ensured = await ensurePayment(ctx, order, metadata);
  const p = ensured.payment;
  if (p.status !== 'PENDING' || p.amountCents === 0)
    throw unprocessable('Unprocessable', 'There is no reportable charge.');
  let rateCents: number | null = null;
  if (p.currency === 'VES') {
    const rate = await ctx.reference.officialRate(ctx.clock.now());
    if (!rate) throw unprocessable('ExchangeRateUnavailable', 'No official VES rate is in force.');
    rateCents = rate.rateCents;
  }
  const held = await onOrder(
    () => reportOrderPayment(ctx, order.id, p.id, metadata),
    () => unprocessable('Unprocessable', 'There is no reportable charge.'),
  );
  const reference = accepted.find((v) => v.input_type === 'reference')?.value ?? null;
  const r = await ctx.handle(
    paymentDecider,
    paymentStream(p.id),
    () => ({ type: 'ReportPayment', reference, values: accepted, officialRateCents: rateCents, now: ctx.clock.now() }),
    { metadata },
  );
  return { paymentId: p.id, position: Math.max(ensured.position, held.position, r.position) };
};

/** The payment an admin reviews: 404 when unknown, 422 `refusal` when it is cash or no longer reviewable. */
const paymentUnderReview = async (ctx: PaymentDeps, paymentId: number, refusal: ErrorId): Promise<Payment> => {
  const p = await loadPayment(ctx, paymentId);
  if (!p) throw notFound('NotFound', 'Payment not found.');
  if (!isActionable(p))
    throw unprocessable(
      refusal,
      p.method === CASH_USD ? 'Cash is collected by the driver.' : `The payment is ${p.status}.`,
    );
  return p;
};

/** POST /admin/payments/{id}/approve. */
export const approvePayment = async (
  ctx: PaymentDeps,
  actor: Actor,
  paymentId: number,
  reason: string,
  metadata: EventMetadata,
) => {
  const p = await paymentUnderReview(ctx, paymentId, 'PaymentApprovalFailed');
  const position = await confirmLivePayment(
    ctx,
    p.id,
    { by: 'admin', adminId: actor.id, reason, providerReference: null },
    metadata,
  );
  if (position === null) throw unprocessable('PaymentApprovalFailed', 'The order is no longer waiting for payment.');
  return { payment: p, position };
};

/** POST /admin/payments/{id}/reject. */
export const rejectPaymentByAdmin = async (
  ctx: PaymentDeps,
  actor: Actor,
  paymentId: number,
  reason: string,
  metadata: EventMetadata,
) => {
  const p = await paymentUnderReview(ctx, paymentId, 'PaymentRejectionFailed');
  const position = await failPayment(ctx, p.id, { by: 'admin', adminId: actor.id, reason }, metadata);
  return { position };
};
