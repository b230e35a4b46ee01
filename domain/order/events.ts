import { z } from 'zod';
import { CREDIT_KINDS } from '../credit/events.js';
import { instant, type EventsOf } from '../eventSchema.js';
import { Pricing, PricingSettings } from '../pricing.js';
import { CANCEL_ROLES } from './cancellationReasons.js';

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
export const BIDDING_STATUSES = ['BROADCASTING', 'COUNTER_OFFERED'] as const;
export type BiddingStatus = (typeof BIDDING_STATUSES)[number];

export const OFFER_STATUSES = ['PENDING', 'ACCEPTED', 'REJECTED', 'EXPIRED', 'WITHDRAWN'] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];

export const WATER_TYPES = ['POTABLE', 'INDUSTRIAL'] as const;
export type WaterType = (typeof WATER_TYPES)[number];

/** Copied from the client's billing profile at creation; later edits of the profile do not change the order. */
export const BillingSnapshot = z.object({
  entityType: z.string(),
  idNumber: z.string(),
  name: z.string(),
  address: z.string(),
  phone: z.string(),
});
export type BillingSnapshot = z.infer<typeof BillingSnapshot>;

/** What the client asked for, with the rate and pricing settings in force when the order was created. */
export const OrderRequest = z.object({
  latitude: z.number(),
  longitude: z.number(),
  address: z.string(),
  addressReference: z.string().nullable(),
  litersRequested: z.number(),
  waterType: z.enum(WATER_TYPES),
  paymentMethod: z.string(),
  paymentFormId: z.int().nullable(),
  notes: z.string().nullable(),
  accessInstructions: z.string().nullable(),
  billing: BillingSnapshot.nullable(),
  officialRateCents: z.int(),
  pricingSettings: PricingSettings,
});
export type OrderRequest = z.infer<typeof OrderRequest>;

export const OrderCreatedData = OrderRequest.extend({
  orderId: z.int(),
  clientId: z.int(),
  /** Non-null for a surplus reservation: the order starts with the listing's owner as its driver. */
  surplusListingId: z.int().nullable(),
  driverId: z.int().nullable(),
  /**
   * The city whose centre is nearest to the delivery point (docs/domain-rules.md); null only when no city has a centre.
   */
  cityId: z.int().nullable(),
  status: z.enum(['BROADCASTING', 'CONFIRMED', 'WAITING_FOR_PAYMENT']),
  pricing: Pricing,
  creditKind: z.enum(CREDIT_KINDS),
  deliveryPin: z.string(),
  createdAt: instant,
  expiresAt: instant,
  /** Set when the order starts in WAITING_FOR_PAYMENT (online surplus reservation). */
  paymentExpiresAt: instant.nullable(),
});
export type OrderCreatedData = z.infer<typeof OrderCreatedData>;

export const OfferPlacedData = z.object({
  orderId: z.int(),
  offerId: z.int(),
  driverId: z.int(),
  offerPriceCents: z.int(),
  driverGrossCents: z.int(),
  estimatedMinutes: z.number().nullable(),
  /** The driver's remaining liters at bid time (the offer's available_liters). */
  availableLiters: z.number(),
  overCapacity: z.boolean(),
  driverLatitude: z.number().nullable(),
  driverLongitude: z.number().nullable(),
  createdAt: instant,
  expiresAt: instant,
  /** The same driver's earlier PENDING offer on this order, now WITHDRAWN (a new bid replaces the old). */
  withdrawnOfferId: z.int().nullable(),
  orderStatus: z.enum(BIDDING_STATUSES),
});
export type OfferPlacedData = z.infer<typeof OfferPlacedData>;

/** The client's verdict on one offer. Every other PENDING offer of the order becomes WITHDRAWN. */
export const OfferAcceptedData = z.object({
  orderId: z.int(),
  offerId: z.int(),
  driverId: z.int(),
  clientId: z.int(),
  /** The liters the driver commits to this order (its remainingLiters drop by them). */
  litersRequested: z.number(),
  pricing: Pricing,
  creditKind: z.enum(CREDIT_KINDS),
  /** CONFIRMED for CASH_USD or a fully promoted order, WAITING_FOR_PAYMENT otherwise. */
  status: z.enum(['CONFIRMED', 'WAITING_FOR_PAYMENT']),
  paymentExpiresAt: instant.nullable(),
  acceptedAt: instant,
});
export type OfferAcceptedData = z.infer<typeof OfferAcceptedData>;

export const OfferRejectedData = z.object({
  orderId: z.int(),
  offerId: z.int(),
  driverId: z.int(),
  rejectedAt: instant,
  orderStatus: z.enum(BIDDING_STATUSES),
});
export type OfferRejectedData = z.infer<typeof OfferRejectedData>;

export const OfferExpiredData = z.object({
  orderId: z.int(),
  offerId: z.int(),
  driverId: z.int(),
  expiredAt: instant,
  orderStatus: z.enum(BIDDING_STATUSES),
});
export type OfferExpiredData = z.infer<typeof OfferExpiredData>;

export const PaymentMethodChangedData = z.object({
  orderId: z.int(),
  clientId: z.int(),
  paymentMethod: z.string(),
  paymentFormId: z.int().nullable(),
  pricing: Pricing,
  creditKind: z.enum(CREDIT_KINDS),
  /** Unchanged, except WAITING_FOR_PAYMENT → CONFIRMED when re-applied credit now covers the whole order. */
  status: z.enum(ORDER_STATUSES),
  changedAt: instant,
});
export type PaymentMethodChangedData = z.infer<typeof PaymentMethodChangedData>;

export const PaymentReportedData = z.object({
  orderId: z.int(),
  paymentId: z.int(),
  reportedAt: instant,
});
export type PaymentReportedData = z.infer<typeof PaymentReportedData>;

/** The reported payment failed (admin rejection, provider failure): the client may pay again or change method. */
export const PaymentRejectedData = z.object({
  orderId: z.int(),
  paymentId: z.int(),
  rejectedAt: instant,
});
export type PaymentRejectedData = z.infer<typeof PaymentRejectedData>;

export const OrderPaidData = z.object({
  orderId: z.int(),
  paymentId: z.int(),
  paidAt: instant,
});
export type OrderPaidData = z.infer<typeof OrderPaidData>;

export const TripStartedData = z.object({
  orderId: z.int(),
  driverId: z.int(),
  startedAt: instant,
});
export type TripStartedData = z.infer<typeof TripStartedData>;

export const DriverLocationRecordedData = z.object({
  orderId: z.int(),
  driverId: z.int(),
  latitude: z.number(),
  longitude: z.number(),
  recordedAt: instant,
});
export type DriverLocationRecordedData = z.infer<typeof DriverLocationRecordedData>;

export const DriverArrivedData = z.object({
  orderId: z.int(),
  driverId: z.int(),
  arrivedAt: instant,
  distanceMeters: z.number(),
});
export type DriverArrivedData = z.infer<typeof DriverArrivedData>;

/** A wrong PIN is recorded (it counts towards the lock) and then reported as 400 DeliveryError: see failureOf. */
export const DeliveryPinRejectedData = z.object({
  orderId: z.int(),
  driverId: z.int(),
  /** Wrong attempts in the current window, this one included. */
  failedAttempts: z.number(),
  /** Set on the attempt that reaches the limit: no attempt is accepted before it. */
  lockedUntil: instant.nullable(),
  attemptedAt: instant,
});
export type DeliveryPinRejectedData = z.infer<typeof DeliveryPinRejectedData>;

export const OrderDeliveredData = z.object({
  orderId: z.int(),
  clientId: z.int(),
  driverId: z.int(),
  /** Committed at acceptance and released now; actualLiters leave the tank. */
  litersRequested: z.number(),
  actualLiters: z.number(),
  paymentMethod: z.string(),
  pricing: Pricing,
  /** True when promotional credit paid part or all of the order and that credit is really redeemed. */
  isValidPromotion: z.boolean(),
  deliveredAt: instant,
});
export type OrderDeliveredData = z.infer<typeof OrderDeliveredData>;

export const OrderCancelledData = z.object({
  orderId: z.int(),
  clientId: z.int(),
  surplusListingId: z.int().nullable(),
  cancelledByRole: z.enum(CANCEL_ROLES),
  cancelledById: z.int(),
  reasonCode: z.string().nullable(),
  reason: z.string().nullable(),
  previousStatus: z.enum(ORDER_STATUSES),
  /** The driver who was assigned (its liters are released), null before acceptance. */
  driverId: z.int().nullable(),
  litersRequested: z.number(),
  /** An online payment already confirmed is owed back to the client: this amount (client charged), else 0. */
  refundDueCents: z.int(),
  cancelledAt: instant,
});
export type OrderCancelledData = z.infer<typeof OrderCancelledData>;

export const OrderExpiredData = z.object({
  orderId: z.int(),
  clientId: z.int(),
  surplusListingId: z.int().nullable(),
  previousStatus: z.enum(['BROADCASTING', 'COUNTER_OFFERED', 'WAITING_FOR_PAYMENT']),
  /** From WAITING_FOR_PAYMENT: the accepted offer that is released (EXPIRED) and its driver. */
  releasedOfferId: z.int().nullable(),
  driverId: z.int().nullable(),
  litersRequested: z.number(),
  expiredAt: instant,
});
export type OrderExpiredData = z.infer<typeof OrderExpiredData>;

export const ORDER_EVENTS = {
  OrderCreated: OrderCreatedData,
  OfferPlaced: OfferPlacedData,
  OfferAccepted: OfferAcceptedData,
  OfferRejected: OfferRejectedData,
  OfferExpired: OfferExpiredData,
  PaymentMethodChanged: PaymentMethodChangedData,
  PaymentReported: PaymentReportedData,
  PaymentRejected: PaymentRejectedData,
  OrderPaid: OrderPaidData,
  TripStarted: TripStartedData,
  DriverLocationRecorded: DriverLocationRecordedData,
  DriverArrived: DriverArrivedData,
  DeliveryPinRejected: DeliveryPinRejectedData,
  OrderDelivered: OrderDeliveredData,
  OrderCancelled: OrderCancelledData,
  OrderExpired: OrderExpiredData,
};
export type OrderEvent = EventsOf<typeof ORDER_EVENTS>;

/** One stream per order, holding the order and its offers. */
export const orderStream = (orderId: number): string => `order-${orderId}`;

/**
 * A customer's or a driver's order slot (`customer-orders-<clientId>`, `driver-orders-<driverId>`): which order
 * holds it, so "one active order each" is decided on one stream.
 */
export const SLOT_EVENTS = {
  OrderSlotTaken: z.object({ orderId: z.int(), at: instant }),
  OrderSlotReleased: z.object({ orderId: z.int(), at: instant }),
};
export type SlotEvent = EventsOf<typeof SLOT_EVENTS>;
