import type { CancelRole } from './cancellationReasons.js';
import type { OrderRequest } from './events.js';

/** What may be asked of an order. Time and ids arrive in the command: the decider mints none. */

export interface CreateOrder extends OrderRequest {
  type: 'CreateOrder';
  orderId: number;
  clientId: number;
  waterPriceCents: number;
  /** usableCredit(credit, creditKindOf(surplus listing id)): the order's credit kind. */
  creditAvailableCents: number;
  deliveryPin: string;
  /** Resolved by the handler from the delivery point (nearest city centre). */
  cityId: number | null;
  now: Date;
  expiresAt: Date;
  /** A surplus reservation: no bidding, the listing's owner is the driver (waterPriceCents from its driver gross). */
  surplus: { listingId: number; driverId: number; paymentExpiresAt: Date } | null;
}

export interface PlaceOffer {
  type: 'PlaceOffer';
  offerId: number;
  driverId: number;
  /** null bids the order's published price (POST /accept); otherwise the counter-offer's driver gross. */
  driverGrossCents: number | null;
  estimatedMinutes: number | null;
  driverRemainingLiters: number;
  force: boolean;
  driverLatitude: number | null;
  driverLongitude: number | null;
  now: Date;
  offerExpiresAt: Date;
}

export interface AcceptOffer {
  type: 'AcceptOffer';
  offerId: number;
  clientId: number;
  driverRemainingLiters: number;
  /** The offer's driver already holds an active order (one at a time). */
  driverBusy: boolean;
  /** creditUsableForOrder(credit, kind, orderId): what the client could spend now, this order's redemption included. */
  creditAvailableCents: number;
  now: Date;
  paymentExpiresAt: Date;
}

export interface RejectOffer {
  type: 'RejectOffer';
  offerId: number;
  clientId: number;
  now: Date;
}

export interface ExpireOffer {
  type: 'ExpireOffer';
  offerId: number;
  now: Date;
}

export interface ChangePaymentMethod {
  type: 'ChangePaymentMethod';
  clientId: number;
  paymentMethod: string;
  paymentFormId: number | null;
  creditAvailableCents: number;
  now: Date;
}

export interface ReportPayment {
  type: 'ReportPayment';
  paymentId: number;
  now: Date;
}

export interface RejectPayment {
  type: 'RejectPayment';
  paymentId: number;
  now: Date;
}

export interface ConfirmPayment {
  type: 'ConfirmPayment';
  paymentId: number;
  now: Date;
}

export interface StartTrip {
  type: 'StartTrip';
  driverId: number;
  now: Date;
}

export interface RecordLocation {
  type: 'RecordLocation';
  driverId: number;
  latitude: number;
  longitude: number;
  now: Date;
}

/** Uses the last recorded location: when the request carries coordinates, send RecordLocation first. */
export interface MarkArrived {
  type: 'MarkArrived';
  driverId: number;
  now: Date;
}

export interface Deliver {
  type: 'Deliver';
  driverId: number;
  deliveryPin: string;
  actualLiters: number;
  /** What the client's credit stream holds redeemed for this order (redeemedForOrder). */
  redeemedCreditCents: number;
  now: Date;
}

export interface CancelOrder {
  type: 'CancelOrder';
  actor: { role: CancelRole; userId: number };
  reasonCode: string | null;
  reason: string | null;
  now: Date;
}

export interface ExpireOrder {
  type: 'ExpireOrder';
  now: Date;
}

export type OrderCommand =
  | CreateOrder
  | PlaceOffer
  | AcceptOffer
  | RejectOffer
  | ExpireOffer
  | ChangePaymentMethod
  | ReportPayment
  | RejectPayment
  | ConfirmPayment
  | StartTrip
  | RecordLocation
  | MarkArrived
  | Deliver
  | CancelOrder
  | ExpireOrder;
