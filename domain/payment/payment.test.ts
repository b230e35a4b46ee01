import { describe, expect, it } from 'vitest';
import { errorOf } from '../../tests/support/deciderSpec.js';
import type { PaymentEvent } from './events.js';
import {
  bolivarCentsOf,
  decide,
  evolve,
  initialState,
  isActionable,
  type PaymentCommand,
  type PaymentState,
  type RequestPayment,
} from './payment.js';

const now = new Date('2026-01-01T12:00:00Z');
const later = new Date('2026-01-01T12:05:00Z');

const request = (over: Partial<RequestPayment> = {}): RequestPayment => ({
  type: 'RequestPayment',
  paymentId: 7,
  orderId: 3,
  userId: 11,
  method: 'PAYMENT_FORM',
  provider: 'manual',
  paymentFormId: 1,
  internalType: 'pago_movil_bdv',
  currency: 'VES',
  amountCents: 2525,
  officialRateCents: 3650,
  platformRevenueCents: 250,
  solidaryFundCents: 48,
  providerRef: null,
  checkoutUrl: null,
  expiresAt: new Date('2026-01-01T12:30:00Z'),
  now,
  ...over,
});

const given = (...events: PaymentEvent[]): PaymentState => events.reduce(evolve, initialState);
const run = (state: PaymentState, cmd: PaymentCommand) => decide(cmd, state);
const after = (state: PaymentState, cmd: PaymentCommand): PaymentState => run(state, cmd).reduce(evolve, state);

describe('bolivarCentsOf', () => {
  it('is round(USD cents × rate), half away from zero', () => {
    expect(bolivarCentsOf(2525, 3650)).toBe(92163); // 25.25 × 36.50 = 921.625 → 921.63
    expect(bolivarCentsOf(100, 3650)).toBe(3650);
    expect(bolivarCentsOf(1, 1)).toBe(0); // 0.01 Bs/USD × 0.01 USD = 0.0001 Bs
    expect(bolivarCentsOf(50, 1)).toBe(1); // exactly half a bolivar cent rounds up
    expect(bolivarCentsOf(0, 3650)).toBe(0);
  });

  it('stays exact for large amounts', () => {
    expect(bolivarCentsOf(10_000_000, 999_999_99)).toBe(99_999_999 * 100_000);
  });
});

describe('payment decider', () => {
  it('opens PENDING with the amount and, for VES, a referential bolivar amount', () => {
    const s = after(initialState, request());
    expect(s).toMatchObject({ status: 'PENDING', amountCents: 2525, amountBsCents: 92163, officialRateCents: 3650 });
  });

  it('settles a zero-amount intent at once (a fully promoted order)', () => {
    const events = run(initialState, request({ amountCents: 0, currency: 'USD', officialRateCents: null }));
    expect(events.map((e) => e.type)).toEqual(['PaymentRequested', 'PaymentConfirmed']);
    expect(events.reduce(evolve, initialState)).toMatchObject({ status: 'CONFIRMED', amountCents: 0 });
  });

  it('fixes the rate when the payment is reported', () => {
    const s = after(after(initialState, request()), {
      type: 'ReportPayment',
      reference: 'REF1234',
      values: [],
      officialRateCents: 4000,
      now: later,
    });
    expect(s).toMatchObject({
      status: 'PROCESSING',
      amountBsCents: 101000,
      officialRateCents: 4000,
      reference: 'REF1234',
    });
  });

  it('refuses a second report and a report of a settled payment', () => {
    const reported = after(after(initialState, request()), {
      type: 'ReportPayment',
      reference: null,
      values: [],
      officialRateCents: 3650,
      now,
    });
    expect(
      errorOf(() => run(reported, { type: 'ReportPayment', reference: null, values: [], officialRateCents: 3650, now }))
        .code,
    ).toBe('Unprocessable');
  });

  it('records a provider event once', () => {
    const s = after(
      initialState,
      request({ method: 'EXCHANGE_PAY', provider: 'exchangepay', currency: 'USD', officialRateCents: null }),
    );
    const record: PaymentCommand = {
      type: 'RecordProviderEvent',
      provider: 'exchangepay',
      providerEventId: 'evt_1',
      eventType: 'payment.confirmed',
      amountCents: 2525,
      now,
    };
    const once = after(s, record);
    expect(run(once, record)).toEqual([]);
    expect(errorOf(() => run(s, { ...record, provider: 'payprov' })).code).toBe('Conflict');
  });

  it('confirms a live payment once; a failed one only when the order was paid with it', () => {
    const s = after(initialState, request());
    const confirm: PaymentCommand = {
      type: 'ConfirmPayment',
      by: 'admin',
      adminId: 1,
      reason: 'transfer seen',
      providerReference: null,
      orderPaid: false,
      now,
    };
    const confirmed = after(s, confirm);
    expect(confirmed?.status).toBe('CONFIRMED');
    expect(run(confirmed, confirm)).toEqual([]);
    const failed = after(s, { type: 'FailPayment', by: 'system', adminId: null, reason: 'superseded', now });
    expect(errorOf(() => run(failed, confirm)).code).toBe('PaymentApprovalFailed');
    expect(after(failed, { ...confirm, orderPaid: true })).toMatchObject({ status: 'CONFIRMED', failureReason: null });
  });

  it('rejects only live payments, with the reason', () => {
    const s = after(initialState, request());
    const failed = after(s, { type: 'FailPayment', by: 'admin', adminId: 1, reason: 'No transfer arrived', now });
    expect(failed).toMatchObject({ status: 'FAILED', failureReason: 'No transfer arrived' });
    expect(
      errorOf(() => run(failed, { type: 'FailPayment', by: 'admin', adminId: 1, reason: 'again', now })).code,
    ).toBe('PaymentRejectionFailed');
  });

  it('expires a live payment and nothing else', () => {
    const s = after(initialState, request());
    const expired = after(s, { type: 'ExpirePayment', now: later });
    expect(expired).toMatchObject({ status: 'FAILED', failureReason: 'The payment window expired.' });
    expect(run(expired, { type: 'ExpirePayment', now: later })).toEqual([]);
    const confirmed = given(
      ...run(initialState, request({ amountCents: 0, currency: 'USD', officialRateCents: null })),
    );
    expect(run(confirmed, { type: 'ExpirePayment', now: later })).toEqual([]);
  });

  it('prepares only a pending immediate debit', () => {
    const form = after(initialState, request());
    const prepare: PaymentCommand = {
      type: 'PreparePayment',
      providerRef: 'di_1',
      bankCode: '0102',
      idNumber: 'V12345678',
      phone: '04141234567',
      name: null,
      now,
    };
    expect(errorOf(() => run(form, prepare)).code).toBe('Unprocessable');
    const di = after(
      initialState,
      request({ method: 'PAYPROV_DI', provider: 'payprov', currency: 'USD', officialRateCents: null }),
    );
    expect(after(di, prepare)).toMatchObject({ providerRef: 'di_1', prepared: { bankCode: '0102' } });
  });

  it('lists cash for review without letting an admin act on it', () => {
    const cash = after(
      initialState,
      request({ method: 'CASH_USD', provider: 'cash', currency: 'USD', officialRateCents: null }),
    )!;
    expect(isActionable(cash)).toBe(false);
    expect(isActionable(after(initialState, request())!)).toBe(true);
  });
});
