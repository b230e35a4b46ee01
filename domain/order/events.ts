import type { CreditKind } from '../credit/events.js';
import type { DomainEvent } from '../decider.js';
import type { Pricing, PricingSettings } from '../pricing.js';
import type { CancelRole } from './cancellationReasons.js';

/**
 * Every event carrying `pricing` says what the client's credit stream must hold redeemed for the order:
 * RedeemCredit {clientId, orderId, kind: creditKind, amountCents: pricing.promoCreditCents}; OrderCancelled and
 * OrderExpired mean RefundCredit.
 *
 * The order stream (one per order) holds the order and its offers, so that every race on an order (two
 * drivers bidding, a client accepting two offers, a payment confirmation against an expiry) is serialised by
 * the stream's expected revision. Ids are the spec's integers; times are ISO 8601 strings (toISOString).
 */

export const ORDER_STATUSES = [
  'BROADCASTING',
  'COUNTER_OFFERED',
  'WAITING_FOR_PAYMENT',
  'CONFIRMED',
  'IN_PROGRESS',
  'ARRIVED',
  'DELIVERED',
  'CANCELLED',
  'EXPIRED',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export type BiddingStatus = 'BROADCASTING' | 'COUNTER_OFFERED';

export const OFFER_STATUSES = ['PENDING', 'ACCEPTED', 'REJECTED', 'EXPIRED', 'WITHDRAWN'] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];

export type WaterType = 'POTABLE' | 'INDUSTRIAL';

/** Copied from the client's billing profile at creation; later edits of the profile do not change the order. */
export interface BillingSnapshot {
  entityType: string;
  idNumber: string;
  name: string;
  address: string;
  phone: string;
}

/** What the client asked for, with the rate and pricing settings in force when the order was created. */
export interface OrderRequest {
  latitude: number;
  longitude: number;
  address: string;
  addressReference: string | null;
  litersRequested: number;
  waterType: WaterType;
  paymentMethod: string;
  paymentFormId: number | null;
  notes: string | null;
  accessInstructions: string | null;
  billing: BillingSnapshot | null;
  officialRateCents: number;
  pricingSettings: PricingSettings;
}

export interface OrderCreatedData extends OrderRequest {
  orderId: number;
  clientId: number;
  /** Non-null for a surplus reservation: the order starts with the listing's owner as its driver. */
  surplusListingId: number | null;
  driverId: number | null;
  /** The city whose centre is nearest the delivery point (docs/domain-rules.md); null only when no city has a centre. */
  cityId: number | null;
  status: 'BROADCASTING' | 'CONFIRMED' | 'WAITING_FOR_PAYMENT';
  pricing: Pricing;
  creditKind: CreditKind;
  deliveryPin: string;
  createdAt: string;
  expiresAt: string;
  /** Set when the order starts in WAITING_FOR_PAYMENT (online surplus reservation). */
  paymentExpiresAt: string | null;
}

export interface OfferPlacedData {
  orderId: number;
  offerId: number;
  driverId: number;
  offerPriceCents: number;
  driverGrossCents: number;
  estimatedMinutes: number | null;
  /** The driver's remaining liters at bid time (the offer's available_liters). */
  availableLiters: number;
  overCapacity: boolean;
  driverLatitude: number | null;
  driverLongitude: number | null;
  createdAt: string;
  expiresAt: string;
  /** The same driver's earlier PENDING offer on this order, now WITHDRAWN (a new bid replaces the old). */
  withdrawnOfferId: number | null;
  orderStatus: BiddingStatus;
}

/** The client's verdict on one offer. Every other PENDING offer of the order becomes WITHDRAWN. */
export interface OfferAcceptedData {
  orderId: number;
  offerId: number;
  driverId: number;
  clientId: number;
  /** The liters the driver commits to this order (its remainingLiters drop by them). */
  litersRequested: number;
  pricing: Pricing;
  creditKind: CreditKind;
  /** CONFIRMED for CASH_USD or a fully promoted order, WAITING_FOR_PAYMENT otherwise. */
  status: 'CONFIRMED' | 'WAITING_FOR_PAYMENT';
  paymentExpiresAt: string | null;
  acceptedAt: string;
}

export interface OfferRejectedData {
  orderId: number;
  offerId: number;
  driverId: number;
  rejectedAt: string;
  orderStatus: BiddingStatus;
}

export interface OfferExpiredData {
  orderId: number;
  offerId: number;
  driverId: number;
  expiredAt: string;
  orderStatus: BiddingStatus;
}

export interface PaymentMethodChangedData {
  orderId: number;
  clientId: number;
  paymentMethod: string;
  paymentFormId: number | null;
  pricing: Pricing;
  creditKind: CreditKind;
  /** Unchanged, except WAITING_FOR_PAYMENT → CONFIRMED when re-applied credit now covers the whole order. */
  status: OrderStatus;
  changedAt: string;
}

export interface PaymentReportedData {
  orderId: number;
  paymentId: number;
  reportedAt: string;
}

/** The reported payment failed (admin rejection, provider failure): the client may pay again or change method. */
export interface PaymentRejectedData {
  orderId: number;
  paymentId: number;
  rejectedAt: string;
}

export interface OrderPaidData {
  orderId: number;
  paymentId: number;
  paidAt: string;
}

export interface TripStartedData {
  orderId: number;
  driverId: number;
  startedAt: string;
}

export interface DriverLocationRecordedData {
  orderId: number;
  driverId: number;
  latitude: number;
  longitude: number;
  recordedAt: string;
}

export interface DriverArrivedData {
  orderId: number;
  driverId: number;
  arrivedAt: string;
  distanceMeters: number;
}

/** A wrong PIN is recorded (it counts towards the lock) and then reported as 400 DeliveryError: see failureOf. */
export interface DeliveryPinRejectedData {
  orderId: number;
  driverId: number;
  /** Wrong attempts in the current window, this one included. */
  failedAttempts: number;
  /** Set on the attempt that reaches the limit: no attempt is accepted before it. */
  lockedUntil: string | null;
  attemptedAt: string;
}

export interface OrderDeliveredData {
  orderId: number;
  clientId: number;
  driverId: number;
  /** Committed at acceptance and released now; actualLiters leave the tank. */
  litersRequested: number;
  actualLiters: number;
  paymentMethod: string;
  pricing: Pricing;
  /** True when promotional credit paid part or all of the order and that credit is really redeemed. */
  isValidPromotion: boolean;
  deliveredAt: string;
}

export interface OrderCancelledData {
  orderId: number;
  clientId: number;
  surplusListingId: number | null;
  cancelledByRole: CancelRole;
  cancelledById: number;
  reasonCode: string | null;
  reason: string | null;
  previousStatus: OrderStatus;
  /** The driver who was assigned (its liters are released), null before acceptance. */
  driverId: number | null;
  litersRequested: number;
  /** An online payment already confirmed is owed back to the client: this amount (client charged), else 0. */
  refundDueCents: number;
  cancelledAt: string;
}

export interface OrderExpiredData {
  orderId: number;
  clientId: number;
  surplusListingId: number | null;
  previousStatus: 'BROADCASTING' | 'COUNTER_OFFERED' | 'WAITING_FOR_PAYMENT';
  /** From WAITING_FOR_PAYMENT: the accepted offer that is released (EXPIRED) and its driver. */
  releasedOfferId: number | null;
  driverId: number | null;
  litersRequested: number;
  expiredAt: string;
}

export type OrderCreated = DomainEvent<'OrderCreated', OrderCreatedData>;
export type OfferPlaced = DomainEvent<'OfferPlaced', OfferPlacedData>;
export type OfferAccepted = DomainEvent<'OfferAccepted', OfferAcceptedData>;
export type OfferRejected = DomainEvent<'OfferRejected', OfferRejectedData>;
export type OfferExpired = DomainEvent<'OfferExpired', OfferExpiredData>;
export type PaymentMethodChanged = DomainEvent<'PaymentMethodChanged', PaymentMethodChangedData>;
export type PaymentReported = DomainEvent<'PaymentReported', PaymentReportedData>;
export type PaymentRejected = DomainEvent<'PaymentRejected', PaymentRejectedData>;
export type OrderPaid = DomainEvent<'OrderPaid', OrderPaidData>;
export type TripStarted = DomainEvent<'TripStarted', TripStartedData>;
export type DriverLocationRecorded = DomainEvent<'DriverLocationRecorded', DriverLocationRecordedData>;
export type DriverArrived = DomainEvent<'DriverArrived', DriverArrivedData>;
export type DeliveryPinRejected = DomainEvent<'DeliveryPinRejected', DeliveryPinRejectedData>;
export type OrderDelivered = DomainEvent<'OrderDelivered', OrderDeliveredData>;
export type OrderCancelled = DomainEvent<'OrderCancelled', OrderCancelledData>;
export type OrderExpired = DomainEvent<'OrderExpired', OrderExpiredData>;

export type OrderEvent =
  | OrderCreated
  | OfferPlaced
  | OfferAccepted
  | OfferRejected
  | OfferExpired
  | PaymentMethodChanged
  | PaymentReported
  | PaymentRejected
  | OrderPaid
  | TripStarted
  | DriverLocationRecorded
  | DriverArrived
  | DeliveryPinRejected
  | OrderDelivered
  | OrderCancelled
  | OrderExpired;

export const ORDER_EVENT_TYPES = [
  'OrderCreated',
  'OfferPlaced',
  'OfferAccepted',
  'OfferRejected',
  'OfferExpired',
  'PaymentMethodChanged',
  'PaymentReported',
  'PaymentRejected',
  'OrderPaid',
  'TripStarted',
  'DriverLocationRecorded',
  'DriverArrived',
  'DeliveryPinRejected',
  'OrderDelivered',
  'OrderCancelled',
  'OrderExpired',
] as const satisfies readonly OrderEvent['type'][];

/** One stream per order, holding the order and its offers. */
export const orderStream = (orderId: number): string => `order-${orderId}`;
