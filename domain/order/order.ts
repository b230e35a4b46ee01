import type { Decider } from '../decider.js';
import { conflict, notFound } from '../errors.js';
import type { Pricing } from '../pricing.js';
import { acceptOffer, expireOffer, placeOffer, rejectOffer } from './bidding.js';
import { cancelOrder, expireOrder } from './closing.js';
import type { OrderCommand } from './commands.js';
import { createOrder } from './creation.js';
import type { OfferStatus, OrderCreatedData, OrderEvent, OrderRequest, OrderStatus } from './events.js';
import { changePaymentMethod, confirmPayment, rejectPayment, reportPayment } from './payment.js';
import { deliver, markArrived, recordLocation, startTrip } from './trip.js';

/**
 * The order aggregate: its state, how events build it, and which phase decides each command
 * (creation.ts, bidding.ts, payment.ts, trip.ts, closing.ts; the commands in commands.ts).
 */

export interface Offer {
  id: number;
  driverId: number;
  offerPriceCents: number;
  driverGrossCents: number;
  estimatedMinutes: number | null;
  availableLiters: number;
  overCapacity: boolean;
  status: OfferStatus;
  driverLatitude: number | null;
  driverLongitude: number | null;
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
}

export interface Order extends OrderRequest {
  id: number;
  clientId: number;
  surplusListingId: number | null;
  status: OrderStatus;
  pricing: Pricing;
  deliveryPin: string;
  createdAt: string;
  expiresAt: string;
  offers: Record<number, Offer>;
  driverId: number | null;
  acceptedOfferId: number | null;
  paymentExpiresAt: string | null;
  reportedPaymentId: number | null;
  paidPaymentId: number | null;
  paidAt: string | null;
  driverLocation: { latitude: number; longitude: number; recordedAt: string } | null;
  startedAt: string | null;
  arrivedAt: string | null;
  arrivalDistanceMeters: number | null;
  failedPinAttempts: number;
  pinLockedUntil: string | null;
  deliveredAt: string | null;
  actualLiters: number | null;
  isValidPromotion: boolean;
  cancelledAt: string | null;
  expiredAt: string | null;
}

/** null until OrderCreated: every command but CreateOrder answers 404 OrderNotFound on it. */
export type OrderState = Order | null;
export const initialState: OrderState = null;

/** Every command but CreateOrder needs the order; each phase decides its own. */
export const decide = (cmd: OrderCommand, state: OrderState): OrderEvent[] => {
  if (cmd.type === 'CreateOrder') {
    if (state) throw conflict('Conflict', 'The order already exists.');
    return createOrder(cmd);
  }
  if (!state) throw notFound('OrderNotFound', 'Order not found.');
  switch (cmd.type) {
    case 'PlaceOffer':
      return placeOffer(state, cmd);
    case 'AcceptOffer':
      return acceptOffer(state, cmd);
    case 'RejectOffer':
      return rejectOffer(state, cmd);
    case 'ExpireOffer':
      return expireOffer(state, cmd);
    case 'ChangePaymentMethod':
      return changePaymentMethod(state, cmd);
    case 'ReportPayment':
      return reportPayment(state, cmd);
    case 'RejectPayment':
      return rejectPayment(state, cmd);
    case 'ConfirmPayment':
      return confirmPayment(state, cmd);
    case 'StartTrip':
      return startTrip(state, cmd);
    case 'RecordLocation':
      return recordLocation(state, cmd);
    case 'MarkArrived':
      return markArrived(state, cmd);
    case 'Deliver':
      return deliver(state, cmd);
    case 'CancelOrder':
      return cancelOrder(state, cmd);
    case 'ExpireOrder':
      return expireOrder(state, cmd);
  }
};

const fromCreated = (d: OrderCreatedData): Order => ({
  id: d.orderId,
  clientId: d.clientId,
  surplusListingId: d.surplusListingId,
  status: d.status,
  latitude: d.latitude,
  longitude: d.longitude,
  address: d.address,
  addressReference: d.addressReference,
  litersRequested: d.litersRequested,
  waterType: d.waterType,
  paymentMethod: d.paymentMethod,
  paymentFormId: d.paymentFormId,
  notes: d.notes,
  accessInstructions: d.accessInstructions,
  billing: d.billing,
  officialRateCents: d.officialRateCents,
  pricingSettings: d.pricingSettings,
  pricing: d.pricing,
  deliveryPin: d.deliveryPin,
  createdAt: d.createdAt,
  expiresAt: d.expiresAt,
  offers: {},
  driverId: d.driverId,
  acceptedOfferId: null,
  paymentExpiresAt: d.paymentExpiresAt,
  reportedPaymentId: null,
  paidPaymentId: null,
  paidAt: null,
  driverLocation: null,
  startedAt: null,
  arrivedAt: null,
  arrivalDistanceMeters: null,
  failedPinAttempts: 0,
  pinLockedUntil: null,
  deliveredAt: null,
  actualLiters: null,
  isValidPromotion: false,
  cancelledAt: null,
  expiredAt: null,
});

const setOfferStatus = (
  offers: Record<number, Offer>,
  id: number,
  status: OfferStatus,
  at: string,
): Record<number, Offer> => ({
  ...offers,
  [id]: { ...offers[id], status, updatedAt: at },
});

/** Offers still pending when the order leaves bidding are closed without a verdict: WITHDRAWN. */
const withdrawPending = (offers: Record<number, Offer>, at: string): Record<number, Offer> =>
  Object.fromEntries(
    Object.values(offers).map((o) => [
      o.id,
      o.status === 'PENDING' ? { ...o, status: 'WITHDRAWN' as const, updatedAt: at } : o,
    ]),
  );

export const evolve = (state: OrderState, e: OrderEvent): OrderState => {
  if (e.type === 'OrderCreated') return fromCreated(e.data);
  if (!state) throw new Error(`${e.type} before OrderCreated`);
  const s = state;
  switch (e.type) {
    case 'OfferPlaced': {
      const d = e.data;
      const offers =
        d.withdrawnOfferId === null ? s.offers : setOfferStatus(s.offers, d.withdrawnOfferId, 'WITHDRAWN', d.createdAt);
      const offer: Offer = {
        id: d.offerId,
        driverId: d.driverId,
        offerPriceCents: d.offerPriceCents,
        driverGrossCents: d.driverGrossCents,
        estimatedMinutes: d.estimatedMinutes,
        availableLiters: d.availableLiters,
        overCapacity: d.overCapacity,
        status: 'PENDING',
        driverLatitude: d.driverLatitude,
        driverLongitude: d.driverLongitude,
        createdAt: d.createdAt,
        updatedAt: d.createdAt,
        expiresAt: d.expiresAt,
      };
      return { ...s, status: d.orderStatus, offers: { ...offers, [offer.id]: offer } };
    }
    case 'OfferAccepted': {
      const d = e.data;
      return {
        ...s,
        status: d.status,
        offers: withdrawPending(setOfferStatus(s.offers, d.offerId, 'ACCEPTED', d.acceptedAt), d.acceptedAt),
        driverId: d.driverId,
        acceptedOfferId: d.offerId,
        pricing: d.pricing,
        paymentExpiresAt: d.paymentExpiresAt,
      };
    }
    case 'OfferRejected':
      return {
        ...s,
        status: e.data.orderStatus,
        offers: setOfferStatus(s.offers, e.data.offerId, 'REJECTED', e.data.rejectedAt),
      };
    case 'OfferExpired':
      return {
        ...s,
        status: e.data.orderStatus,
        offers: setOfferStatus(s.offers, e.data.offerId, 'EXPIRED', e.data.expiredAt),
      };
    case 'PaymentMethodChanged':
      return {
        ...s,
        status: e.data.status,
        paymentMethod: e.data.paymentMethod,
        paymentFormId: e.data.paymentFormId,
        pricing: e.data.pricing,
      };
    case 'PaymentReported':
      return { ...s, reportedPaymentId: e.data.paymentId };
    case 'PaymentRejected':
      return { ...s, reportedPaymentId: null };
    case 'OrderPaid':
      return { ...s, status: 'CONFIRMED', paidPaymentId: e.data.paymentId, paidAt: e.data.paidAt };
    case 'TripStarted':
      return { ...s, status: 'IN_PROGRESS', startedAt: e.data.startedAt };
    case 'DriverLocationRecorded':
      return {
        ...s,
        driverLocation: { latitude: e.data.latitude, longitude: e.data.longitude, recordedAt: e.data.recordedAt },
      };
    case 'DriverArrived':
      return { ...s, status: 'ARRIVED', arrivedAt: e.data.arrivedAt, arrivalDistanceMeters: e.data.distanceMeters };
    case 'DeliveryPinRejected':
      // Reaching the limit starts the lock and a fresh window of attempts after it.
      return e.data.lockedUntil
        ? { ...s, failedPinAttempts: 0, pinLockedUntil: e.data.lockedUntil }
        : { ...s, failedPinAttempts: e.data.failedAttempts };
    case 'OrderDelivered':
      return {
        ...s,
        status: 'DELIVERED',
        deliveredAt: e.data.deliveredAt,
        actualLiters: e.data.actualLiters,
        isValidPromotion: e.data.isValidPromotion,
      };
    case 'OrderCancelled':
      return {
        ...s,
        status: 'CANCELLED',
        cancelledAt: e.data.cancelledAt,
        offers: withdrawPending(s.offers, e.data.cancelledAt),
      };
    case 'OrderExpired': {
      const d = e.data;
      const offers =
        d.releasedOfferId === null ? s.offers : setOfferStatus(s.offers, d.releasedOfferId, 'EXPIRED', d.expiredAt);
      return { ...s, status: 'EXPIRED', expiredAt: d.expiredAt, offers: withdrawPending(offers, d.expiredAt) };
    }
  }
};

export const orderDecider: Decider<OrderCommand, OrderState, OrderEvent> = { initialState, evolve, decide };
