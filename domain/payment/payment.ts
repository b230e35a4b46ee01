import { iso } from '../time.js';
import type { Decider } from '../decider.js';
import { conflict, unprocessable } from '../errors.js';
import type {
  PaymentAttemptOpened,
  PaymentCurrency,
  PaymentEvent,
  PaymentRequestedData,
  PaymentStatus,
  ReportedFormValue,
  SettledBy,
} from './events.js';

export const CASH_USD = 'CASH_USD';
export const PAYPROV_DI = 'PAYPROV_DI';
export const EXCHANGE_PAY = 'EXCHANGE_PAY';

/** The intent as requested (PaymentRequested), and what happened to it since. */
export interface Payment extends Omit<PaymentRequestedData, 'paymentId' | 'requestedAt'> {
  id: number;
  status: PaymentStatus;
  prepared: {
    providerRef: string;
    bankCode: string;
    idNumber: string;
    phone: string;
    name: string | null;
    preparedAt: string;
  } | null;
  reference: string | null;
  values: ReportedFormValue[];
  reportedAt: string | null;
  confirmedAt: string | null;
  failedAt: string | null;
  failureReason: string | null;
  providerEventIds: string[];
  /** A verified provider event said the charge was paid, for its whole amount. */
  paidPerProvider: boolean;
  createdAt: string;
  updatedAt: string;
}

export type PaymentState = Payment | null;
export const initialState: PaymentState = null;

/**
 * Bolivar cents for USD cents at a rate in bolivar cents per USD (rate × 100):
 * round(usdCents × rate) = round(usdCents × rateCents / 100), half away from zero, exact in BigInt.
 */
export const bolivarCentsOf = (usdCents: number, rateCents: number): number => {
  if (!Number.isSafeInteger(usdCents) || !Number.isSafeInteger(rateCents) || usdCents < 0 || rateCents <= 0) {
    throw new RangeError(`bad amount or rate: ${usdCents}, ${rateCents}`);
  }
  const n = BigInt(usdCents) * BigInt(rateCents);
  return Number((2n * n + 100n) / 200n);
};

/** A payment still waiting for money: what an admin may approve or reject, and what expiry fails. */
export const isLive = (p: Payment): boolean => p.status === 'PENDING' || p.status === 'PROCESSING';

/**
 * Who confirms a payment because its order was paid with it: the provider when its verified event said the
 * charge was paid (a webhook confirms the order first, and the payment follows the order), else the system.
 * An admin's approval and a debit the provider confirms in its answer confirm the payment themselves.
 */
export const confirmerOnOrderPaid = (p: Payment): SettledBy => (p.paidPerProvider ? 'provider' : 'system');

/** Cash is collected by the driver at delivery: it is listed for review, but no admin settles it. */
export const isActionable = (p: Payment): boolean => isLive(p) && p.method !== CASH_USD;

export interface RequestPayment {
  type: 'RequestPayment';
  paymentId: number;
  orderId: number;
  userId: number;
  method: string;
  provider: string;
  paymentFormId: number | null;
  internalType: string | null;
  currency: PaymentCurrency;
  amountCents: number;
  /** The official rate for a VES form (the bolivar amount is referential until the report fixes it). */
  officialRateCents: number | null;
  platformRevenueCents: number;
  solidaryFundCents: number;
  providerRef: string | null;
  checkoutUrl: string | null;
  expiresAt: Date;
  now: Date;
}

export interface PreparePayment {
  type: 'PreparePayment';
  providerRef: string;
  bankCode: string;
  idNumber: string;
  phone: string;
  name: string | null;
  now: Date;
}

export interface ReportPayment {
  type: 'ReportPayment';
  reference: string | null;
  values: ReportedFormValue[];
  /** Required for VES payments: the rate in force now, which the report fixes. */
  officialRateCents: number | null;
  now: Date;
}

export interface RecordProviderEvent {
  type: 'RecordProviderEvent';
  provider: string;
  providerEventId: string;
  eventType: 'payment.confirmed' | 'payment.failed';
  amountCents: number;
  now: Date;
}

export interface ConfirmPayment {
  type: 'ConfirmPayment';
  by: SettledBy;
  adminId: number | null;
  reason: string | null;
  providerReference: string | null;
  /** The order stream recorded this payment as paid: the order is the arbiter, so even a failed payment follows. */
  orderPaid: boolean;
  now: Date;
}

export interface FailPayment {
  type: 'FailPayment';
  by: SettledBy;
  adminId: number | null;
  reason: string;
  now: Date;
}

export interface ExpirePayment {
  type: 'ExpirePayment';
  now: Date;
}

export type PaymentCommand =
  RequestPayment | PreparePayment | ReportPayment | RecordProviderEvent | ConfirmPayment | FailPayment | ExpirePayment;

const existing = (s: PaymentState): Payment => {
  if (!s) throw conflict('Conflict', 'The payment does not exist.');
  return s;
};

export const decide = (cmd: PaymentCommand, state: PaymentState): PaymentEvent[] => {
  if (cmd.type === 'RequestPayment') {
    if (state) throw conflict('Conflict', 'The payment already exists.');
    if (!Number.isSafeInteger(cmd.amountCents) || cmd.amountCents < 0)
      throw new RangeError(`bad amount: ${cmd.amountCents}`);
    const requested: PaymentEvent = {
      type: 'PaymentRequested',
      data: {
        paymentId: cmd.paymentId,
        orderId: cmd.orderId,
        userId: cmd.userId,
        method: cmd.method,
        provider: cmd.provider,
        paymentFormId: cmd.paymentFormId,
        internalType: cmd.internalType,
        currency: cmd.currency,
        amountCents: cmd.amountCents,
        amountBsCents: cmd.officialRateCents === null ? null : bolivarCentsOf(cmd.amountCents, cmd.officialRateCents),
        officialRateCents: cmd.officialRateCents,
        platformRevenueCents: cmd.platformRevenueCents,
        solidaryFundCents: cmd.solidaryFundCents,
        providerRef: cmd.providerRef,
        checkoutUrl: cmd.checkoutUrl,
        expiresAt: iso(cmd.expiresAt),
        requestedAt: iso(cmd.now),
      },
    };
    if (cmd.amountCents > 0) return [requested];
    // Nothing to collect (credit covers the order): the intent is settled the moment it exists.
    return [
      requested,
      {
        type: 'PaymentConfirmed',
        data: {
          paymentId: cmd.paymentId,
          orderId: cmd.orderId,
          amountCents: 0,
          by: 'system',
          adminId: null,
          reason: 'Fully covered by promotional credit.',
          providerReference: null,
          confirmedAt: iso(cmd.now),
        },
      },
    ];
  }
  const p = existing(state);
  switch (cmd.type) {
    case 'PreparePayment': {
      if (p.method !== PAYPROV_DI) throw unprocessable('Unprocessable', 'The payment is not an immediate bank debit.');
      if (p.status !== 'PENDING') throw unprocessable('Unprocessable', 'The payment is no longer pending.');
      return [
        {
          type: 'PaymentPrepared',
          data: {
            paymentId: p.id,
            providerRef: cmd.providerRef,
            bankCode: cmd.bankCode,
            idNumber: cmd.idNumber,
            phone: cmd.phone,
            name: cmd.name,
            preparedAt: iso(cmd.now),
          },
        },
      ];
    }

    case 'ReportPayment': {
      if (p.status !== 'PENDING' || p.amountCents === 0)
        throw unprocessable('Unprocessable', 'There is no reportable charge.');
      if (p.currency === 'VES' && cmd.officialRateCents === null)
        throw unprocessable('ExchangeRateUnavailable', 'No official VES rate is in force.');
      const rate = p.currency === 'VES' ? cmd.officialRateCents : null;
      return [
        {
          type: 'PaymentProcessing',
          data: {
            paymentId: p.id,
            orderId: p.orderId,
            reference: cmd.reference,
            values: cmd.values,
            amountBsCents: rate === null ? null : bolivarCentsOf(p.amountCents, rate),
            officialRateCents: rate,
            reportedAt: iso(cmd.now),
          },
        },
      ];
    }

    case 'RecordProviderEvent': {
      if (p.providerEventIds.includes(cmd.providerEventId)) return [];
      if (cmd.provider !== p.provider) throw conflict('Conflict', "The event is not from this payment's provider.");
      return [
        {
          type: 'PaymentProviderEventRecorded',
          data: {
            paymentId: p.id,
            provider: cmd.provider,
            providerEventId: cmd.providerEventId,
            eventType: cmd.eventType,
            amountCents: cmd.amountCents,
            receivedAt: iso(cmd.now),
          },
        },
      ];
    }

    case 'ConfirmPayment': {
      if (p.status === 'CONFIRMED') return [];
      if (!isLive(p) && !cmd.orderPaid)
        throw unprocessable('PaymentApprovalFailed', `The payment is ${p.status} and cannot be confirmed.`);
      return [
        {
          type: 'PaymentConfirmed',
          data: {
            paymentId: p.id,
            orderId: p.orderId,
            amountCents: p.amountCents,
            by: cmd.by,
            adminId: cmd.adminId,
            reason: cmd.reason,
            providerReference: cmd.providerReference,
            confirmedAt: iso(cmd.now),
          },
        },
      ];
    }

    case 'FailPayment': {
      if (!isLive(p))
        throw unprocessable('PaymentRejectionFailed', `The payment is ${p.status} and cannot be rejected.`);
      return [
        {
          type: 'PaymentFailed',
          data: {
            paymentId: p.id,
            orderId: p.orderId,
            by: cmd.by,
            adminId: cmd.adminId,
            reason: cmd.reason,
            failedAt: iso(cmd.now),
          },
        },
      ];
    }

    case 'ExpirePayment': {
      if (!isLive(p)) return [];
      return [{ type: 'PaymentExpired', data: { paymentId: p.id, orderId: p.orderId, expiredAt: iso(cmd.now) } }];
    }
  }
};

export const PAYMENT_EXPIRED_REASON = 'The payment window expired.';

export const evolve = (s: PaymentState, e: PaymentEvent): PaymentState => {
  if (e.type === 'PaymentRequested') {
    const d = e.data;
    return {
      id: d.paymentId,
      orderId: d.orderId,
      userId: d.userId,
      method: d.method,
      provider: d.provider,
      paymentFormId: d.paymentFormId,
      internalType: d.internalType,
      currency: d.currency,
      amountCents: d.amountCents,
      amountBsCents: d.amountBsCents,
      officialRateCents: d.officialRateCents,
      platformRevenueCents: d.platformRevenueCents,
      solidaryFundCents: d.solidaryFundCents,
      providerRef: d.providerRef,
      checkoutUrl: d.checkoutUrl,
      expiresAt: d.expiresAt,
      status: 'PENDING',
      prepared: null,
      reference: null,
      values: [],
      reportedAt: null,
      confirmedAt: null,
      failedAt: null,
      failureReason: null,
      providerEventIds: [],
      paidPerProvider: false,
      createdAt: d.requestedAt,
      updatedAt: d.requestedAt,
    };
  }
  if (!s) return s;
  switch (e.type) {
    case 'PaymentPrepared': {
      const { paymentId: _id, ...prepared } = e.data;
      return { ...s, providerRef: e.data.providerRef, prepared, updatedAt: e.data.preparedAt };
    }
    case 'PaymentProcessing':
      return {
        ...s,
        status: 'PROCESSING',
        reference: e.data.reference,
        values: e.data.values,
        amountBsCents: e.data.amountBsCents ?? s.amountBsCents,
        officialRateCents: e.data.officialRateCents ?? s.officialRateCents,
        reportedAt: e.data.reportedAt,
        updatedAt: e.data.reportedAt,
      };
    case 'PaymentProviderEventRecorded':
      return {
        ...s,
        providerEventIds: [...s.providerEventIds, e.data.providerEventId],
        paidPerProvider:
          s.paidPerProvider || (e.data.eventType === 'payment.confirmed' && e.data.amountCents === s.amountCents),
        updatedAt: e.data.receivedAt,
      };
    case 'PaymentConfirmed':
      return {
        ...s,
        status: 'CONFIRMED',
        reference: s.reference ?? e.data.providerReference,
        confirmedAt: e.data.confirmedAt,
        failedAt: null,
        failureReason: null,
        updatedAt: e.data.confirmedAt,
      };
    case 'PaymentFailed':
      return {
        ...s,
        status: 'FAILED',
        failedAt: e.data.failedAt,
        failureReason: e.data.reason,
        updatedAt: e.data.failedAt,
      };
    case 'PaymentExpired':
      return {
        ...s,
        status: 'FAILED',
        failedAt: e.data.expiredAt,
        failureReason: PAYMENT_EXPIRED_REASON,
        updatedAt: e.data.expiredAt,
      };
  }
};

export const paymentDecider: Decider<PaymentCommand, PaymentState, PaymentEvent> = { initialState, evolve, decide };

/** The order's attempts: the last opened is the current one. */
export interface OrderPayments {
  paymentIds: number[];
}

export const currentPaymentId = (s: OrderPayments): number | null => s.paymentIds.at(-1) ?? null;

/** Opening attempt `paymentId` over `after`, the current attempt as the opener read it (null: none). */
export interface OpenPaymentAttempt {
  type: 'OpenPaymentAttempt';
  orderId: number;
  paymentId: number;
  after: number | null;
  now: Date;
}

/**
 * Of two callers opening an attempt over the same current one, one opens it; for the other the index has
 * moved on, and it opens nothing (it reads again and finds the winner's attempt).
 */
export const orderPaymentsDecider: Decider<OpenPaymentAttempt, OrderPayments, PaymentAttemptOpened> = {
  initialState: { paymentIds: [] },
  evolve: (s, e) => ({ paymentIds: [...s.paymentIds, e.data.paymentId] }),
  decide: (c, s) =>
    currentPaymentId(s) === c.after
      ? [
          {
            type: 'PaymentAttemptOpened',
            data: { orderId: c.orderId, paymentId: c.paymentId, openedAt: c.now.toISOString() },
          },
        ]
      : [],
};
