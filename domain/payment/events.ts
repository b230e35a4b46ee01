import type { DomainEvent } from '../decider.js';

/**
 * One stream per payment (`payment-<id>`): one attempt to pay one order. An order may see several
 * attempts over time (a failed one is followed by a new one), never two live ones at once: the order's
 * index stream (`orderpayments-<orderId>`) names the current attempt.
 *
 * Statuses are the spec's: PENDING (intent open), PROCESSING (reported, awaiting the provider or an
 * admin), CONFIRMED, FAILED (provider failure, admin rejection, expiry, or superseded). Times are ISO 8601.
 */
export const PAYMENT_STATUSES = ['PENDING', 'PROCESSING', 'CONFIRMED', 'FAILED'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export type PaymentCurrency = 'USD' | 'VES' | 'USDT';

/** Who settled a payment: the provider (webhook or synchronous debit), an admin, or the system. */
export type SettledBy = 'provider' | 'admin' | 'system';

export interface PaymentRequestedData {
  paymentId: number;
  orderId: number;
  userId: number;
  method: string;
  provider: string;
  paymentFormId: number | null;
  /** The form's internal_name for PAYMENT_FORM payments. */
  internalType: string | null;
  currency: PaymentCurrency;
  /** The order's client_charged_cents when the intent was opened (0 for a fully promoted order). */
  amountCents: number;
  /** VES forms: round(amountCents × rate), referential until the report fixes the rate. */
  amountBsCents: number | null;
  officialRateCents: number | null;
  platformRevenueCents: number;
  solidaryFundCents: number;
  /** Redirect methods: the provider's intent reference (webhooks name it) and where the payer goes. */
  providerRef: string | null;
  checkoutUrl: string | null;
  expiresAt: string;
  requestedAt: string;
}

/** Immediate bank debit, step 1: the payer's bank sent an OTP for this debit. */
export interface PaymentPreparedData {
  paymentId: number;
  providerRef: string;
  bankCode: string;
  idNumber: string;
  phone: string;
  name: string | null;
  preparedAt: string;
}

export interface ReportedFormValue {
  index: number;
  label: string;
  input_type: string;
  value: string;
}

/** The payer says they paid (a form's values, or the debit's OTP was submitted): PROCESSING. */
export interface PaymentReportedData {
  paymentId: number;
  orderId: number;
  reference: string | null;
  values: ReportedFormValue[];
  /** VES forms: fixed here, at the official rate in force when the payment is reported. */
  amountBsCents: number | null;
  officialRateCents: number | null;
  reportedAt: string;
}

/** A verified provider event, recorded once per provider event id whatever its effect. */
export interface PaymentProviderEventRecordedData {
  paymentId: number;
  provider: string;
  providerEventId: string;
  eventType: 'payment.confirmed' | 'payment.failed';
  amountCents: number;
  receivedAt: string;
}

export interface PaymentConfirmedData {
  paymentId: number;
  orderId: number;
  amountCents: number;
  by: SettledBy;
  adminId: number | null;
  reason: string | null;
  providerReference: string | null;
  confirmedAt: string;
}

export interface PaymentFailedData {
  paymentId: number;
  orderId: number;
  by: SettledBy;
  adminId: number | null;
  reason: string;
  failedAt: string;
}

/** The order's payment window passed (the order expired) before the payment was confirmed. */
export interface PaymentExpiredData {
  paymentId: number;
  orderId: number;
  expiredAt: string;
}

export type PaymentRequested = DomainEvent<'PaymentRequested', PaymentRequestedData>;
export type PaymentPrepared = DomainEvent<'PaymentPrepared', PaymentPreparedData>;
export type PaymentProcessing = DomainEvent<'PaymentProcessing', PaymentReportedData>;
export type PaymentProviderEventRecorded = DomainEvent<'PaymentProviderEventRecorded', PaymentProviderEventRecordedData>;
export type PaymentConfirmed = DomainEvent<'PaymentConfirmed', PaymentConfirmedData>;
export type PaymentFailed = DomainEvent<'PaymentFailed', PaymentFailedData>;
export type PaymentExpired = DomainEvent<'PaymentExpired', PaymentExpiredData>;

export type PaymentEvent =
  | PaymentRequested
  | PaymentPrepared
  | PaymentProcessing
  | PaymentProviderEventRecorded
  | PaymentConfirmed
  | PaymentFailed
  | PaymentExpired;

export const PAYMENT_EVENT_TYPES = [
  'PaymentRequested',
  'PaymentPrepared',
  'PaymentProcessing',
  'PaymentProviderEventRecorded',
  'PaymentConfirmed',
  'PaymentFailed',
  'PaymentExpired',
] as const satisfies readonly PaymentEvent['type'][];

export const paymentStream = (paymentId: number): string => `payment-${paymentId}`;

/**
 * The order's payment attempts, in order; the last one is the current. One word before the dash: a
 * stream's category is what precedes its first dash, and `order-payments-` fell among the order streams.
 */
export const orderPaymentsStream = (orderId: number): string => `orderpayments-${orderId}`;

export type PaymentAttemptOpened = DomainEvent<'PaymentAttemptOpened', { orderId: number; paymentId: number; openedAt: string }>;
