import { z } from 'zod';
import { instant, type EventsOf } from '../eventSchema.js';

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

export const PAYMENT_CURRENCIES = ['USD', 'VES', 'USDT'] as const;
export type PaymentCurrency = (typeof PAYMENT_CURRENCIES)[number];

/** Who settled a payment: the provider (webhook or synchronous debit), an admin, or the system. */
export const SETTLED_BY = ['provider', 'admin', 'system'] as const;
export type SettledBy = (typeof SETTLED_BY)[number];

export const PaymentRequestedData = z.object({
  paymentId: z.int(),
  orderId: z.int(),
  userId: z.int(),
  method: z.string(),
  provider: z.string(),
  paymentFormId: z.int().nullable(),
  /** The form's internal_name for PAYMENT_FORM payments. */
  internalType: z.string().nullable(),
  currency: z.enum(PAYMENT_CURRENCIES),
  /** The order's client_charged_cents when the intent was opened (0 for a fully promoted order). */
  amountCents: z.int(),
  /** VES forms: round(amountCents × rate), referential until the report fixes the rate. */
  amountBsCents: z.int().nullable(),
  officialRateCents: z.int().nullable(),
  platformRevenueCents: z.int(),
  solidaryFundCents: z.int(),
  /** Redirect methods: the provider's intent reference (webhooks name it) and where the payer goes. */
  providerRef: z.string().nullable(),
  checkoutUrl: z.string().nullable(),
  expiresAt: instant,
  requestedAt: instant,
});
export type PaymentRequestedData = z.infer<typeof PaymentRequestedData>;

/** Immediate bank debit, step 1: the payer's bank sent an OTP for this debit. */
export const PaymentPreparedData = z.object({
  paymentId: z.int(),
  providerRef: z.string(),
  bankCode: z.string(),
  idNumber: z.string(),
  phone: z.string(),
  name: z.string().nullable(),
  preparedAt: instant,
});
export type PaymentPreparedData = z.infer<typeof PaymentPreparedData>;

export const ReportedFormValue = z.object({
  index: z.number(),
  label: z.string(),
  input_type: z.string(),
  value: z.string(),
});
export type ReportedFormValue = z.infer<typeof ReportedFormValue>;

/** The payer says they paid (a form's values, or the debit's OTP was submitted): PROCESSING. */
export const PaymentReportedData = z.object({
  paymentId: z.int(),
  orderId: z.int(),
  reference: z.string().nullable(),
  values: z.array(ReportedFormValue),
  /** VES forms: fixed here, at the official rate in force when the payment is reported. */
  amountBsCents: z.int().nullable(),
  officialRateCents: z.int().nullable(),
  reportedAt: instant,
});
export type PaymentReportedData = z.infer<typeof PaymentReportedData>;

/** A verified provider event, recorded once per provider event id whatever its effect. */
export const PaymentProviderEventRecordedData = z.object({
  paymentId: z.int(),
  provider: z.string(),
  providerEventId: z.string(),
  eventType: z.enum(['payment.confirmed', 'payment.failed']),
  amountCents: z.int(),
  receivedAt: instant,
});
export type PaymentProviderEventRecordedData = z.infer<typeof PaymentProviderEventRecordedData>;

export const PaymentConfirmedData = z.object({
  paymentId: z.int(),
  orderId: z.int(),
  amountCents: z.int(),
  by: z.enum(SETTLED_BY),
  adminId: z.int().nullable(),
  reason: z.string().nullable(),
  providerReference: z.string().nullable(),
  confirmedAt: instant,
});
export type PaymentConfirmedData = z.infer<typeof PaymentConfirmedData>;

export const PaymentFailedData = z.object({
  paymentId: z.int(),
  orderId: z.int(),
  by: z.enum(SETTLED_BY),
  adminId: z.int().nullable(),
  reason: z.string(),
  failedAt: instant,
});
export type PaymentFailedData = z.infer<typeof PaymentFailedData>;

/** The order's payment window passed (the order expired) before the payment was confirmed. */
export const PaymentExpiredData = z.object({
  paymentId: z.int(),
  orderId: z.int(),
  expiredAt: instant,
});
export type PaymentExpiredData = z.infer<typeof PaymentExpiredData>;

export const PAYMENT_EVENTS = {
  PaymentRequested: PaymentRequestedData,
  PaymentPrepared: PaymentPreparedData,
  PaymentProcessing: PaymentReportedData,
  PaymentProviderEventRecorded: PaymentProviderEventRecordedData,
  PaymentConfirmed: PaymentConfirmedData,
  PaymentFailed: PaymentFailedData,
  PaymentExpired: PaymentExpiredData,
};
export type PaymentEvent = EventsOf<typeof PAYMENT_EVENTS>;

export const paymentStream = (paymentId: number): string => `payment-${paymentId}`;

/**
 * The order's payment attempts, in order; the last one is the current. One word before the dash: a
 * stream's category is what precedes its first dash, and `order-payments-` fell among the order streams.
 */
export const orderPaymentsStream = (orderId: number): string => `orderpayments-${orderId}`;

export const ORDER_PAYMENTS_EVENTS = {
  PaymentAttemptOpened: z.object({ orderId: z.int(), paymentId: z.int(), openedAt: instant }),
};
export type PaymentAttemptOpened = EventsOf<typeof ORDER_PAYMENTS_EVENTS>;
