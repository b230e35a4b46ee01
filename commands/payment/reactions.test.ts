import { describe, expect, it } from 'vitest';
import {
  paymentDecider,
  type PaymentCommand,
  type PaymentState,
  type RequestPayment,
} from '../../domain/payment/payment.js';
import { spec } from '../../tests/support/deciderSpec.js';
import type { Cause, Send } from '../processManager.js';
import { paymentReactions } from './reactions.js';

/** The payments process manager's decisions: given the order and the payment, when an event, then these commands. */

const at = (minutes: number) => new Date(Date.parse('2026-01-01T12:00:00Z') + minutes * 60_000);
const NOW = at(10);

const request = (over: Partial<RequestPayment> = {}): RequestPayment => ({
  type: 'RequestPayment',
  paymentId: 7,
  orderId: 3,
  userId: 11,
  method: 'PAYPROV_DI',
  provider: 'payprov',
  paymentFormId: null,
  internalType: null,
  currency: 'USD',
  amountCents: 2525,
  officialRateCents: null,
  platformRevenueCents: 250,
  solidaryFundCents: 48,
  providerRef: 'ref-1',
  checkoutUrl: null,
  expiresAt: at(30),
  now: at(0),
  ...over,
});
const payment = (...commands: PaymentCommand[]): PaymentState =>
  spec(paymentDecider)
    .givenCommands(...commands)
    .state();
const pending = payment(request());
const cash = payment(request({ method: 'CASH_USD', provider: 'cash', providerRef: null }));
const event = (type: string, data: Record<string, unknown> = {}): Cause => ({
  eventId: 'e-1',
  type,
  data: { orderId: 3, ...data },
  streamId: 'order-3',
});
const sent = (s: Send, state?: unknown) => ({
  streamId: s.streamId,
  purpose: s.purpose,
  command: typeof s.command === 'function' ? s.command(state) : s.command,
});
const when = (e: Cause, p: PaymentState) =>
  paymentReactions(e, { order: null, payment: p }, NOW).map((s) => sent(s, p));

describe('payment reactions', () => {
  it('expires a live payment when its order expires, and fails it when the order is cancelled', () => {
    expect(when(event('OrderExpired'), pending)).toEqual([
      { streamId: 'payment-7', purpose: 'expire', command: { type: 'ExpirePayment', now: NOW } },
    ]);
    expect(when(event('OrderCancelled'), pending)).toMatchObject([
      {
        streamId: 'payment-7',
        purpose: 'cancel',
        command: { type: 'FailPayment', by: 'system', reason: 'The order was cancelled.' },
      },
    ]);
    // What the failure leaves on the payment: domain/payment/payment.test.ts.
    expect(
      paymentDecider
        .decide(when(event('OrderCancelled'), pending)[0].command as PaymentCommand, pending)
        .reduce(paymentDecider.evolve, pending),
    ).toMatchObject({ status: 'FAILED', failureReason: 'The order was cancelled.' });
  });

  it('leaves a settled payment alone when the order ends', () => {
    const failed = payment(request(), {
      type: 'FailPayment',
      by: 'provider',
      adminId: null,
      reason: 'declined',
      now: at(1),
    });
    expect(when(event('OrderExpired'), failed)).toEqual([]);
    expect(when(event('OrderCancelled'), null)).toEqual([]);
  });

  it('confirms the payment the order was paid with, once', () => {
    expect(when(event('OrderPaid', { paymentId: 7 }), pending)).toMatchObject([
      { streamId: 'payment-7', purpose: 'confirm', command: { type: 'ConfirmPayment', orderPaid: true } },
    ]);
    const confirmed = payment(request(), {
      type: 'ConfirmPayment',
      by: 'system',
      adminId: null,
      reason: null,
      providerReference: null,
      orderPaid: true,
      now: at(2),
    });
    expect(when(event('OrderPaid', { paymentId: 7 }), confirmed)).toMatchObject([{ command: null }]);
  });

  it("confirms by the provider when the payment's stream holds the provider's confirmation, else by the system", () => {
    const news = (amountCents: number): PaymentCommand => ({
      type: 'RecordProviderEvent',
      provider: 'payprov',
      providerEventId: `pp-${amountCents}`,
      eventType: 'payment.confirmed',
      amountCents,
      now: at(1),
    });
    const byWhom = (p: PaymentState) =>
      (when(event('OrderPaid', { paymentId: 7 }), p)[0].command as { by: string } | null)?.by;
    // A webhook confirms the order first; its OrderPaid confirms the payment before the webhook's own send.
    expect(byWhom(payment(request(), news(2525)))).toBe('provider');
    expect(byWhom(payment(request(), news(1)))).toBe('system');
    expect(byWhom(pending)).toBe('system');
  });

  it('confirms cash collected at delivery, and only cash', () => {
    expect(when(event('OrderDelivered', { paymentMethod: 'CASH_USD' }), cash)).toMatchObject([
      { purpose: 'cash', command: { type: 'ConfirmPayment', orderPaid: false } },
    ]);
    expect(when(event('OrderDelivered', { paymentMethod: 'PAYPROV_DI' }), pending)).toEqual([]);
  });

  it('reopens the order after a failed or expired payment', () => {
    for (const type of ['PaymentFailed', 'PaymentExpired']) {
      expect(when(event(type, { paymentId: 7 }), null)).toEqual([
        { streamId: 'order-3', purpose: 'reopen', command: { type: 'RejectPayment', paymentId: 7, now: NOW } },
      ]);
    }
  });

  it('confirms on the order first, then on the payment, for a provider confirmation of the right amount', () => {
    const confirmed = event('PaymentProviderEventRecorded', {
      paymentId: 7,
      eventType: 'payment.confirmed',
      amountCents: 2525,
    });
    expect(when(confirmed, pending).map((s) => [s.streamId, s.purpose])).toEqual([
      ['order-3', 'order-confirm'],
      ['payment-7', 'confirm'],
    ]);
  });

  it('confirms nothing for a different amount, and fails the payment for a provider failure', () => {
    expect(
      when(
        event('PaymentProviderEventRecorded', { paymentId: 7, eventType: 'payment.confirmed', amountCents: 1 }),
        pending,
      ),
    ).toEqual([]);
    expect(
      when(
        event('PaymentProviderEventRecorded', { paymentId: 7, eventType: 'payment.failed', amountCents: 2525 }),
        pending,
      ),
    ).toMatchObject([{ streamId: 'payment-7', purpose: 'fail', command: { type: 'FailPayment', by: 'provider' } }]);
  });
});
