import type { CreditKind } from '../credit/events.js';
import type { Decider } from '../decider.js';
import { DomainError, badRequest, conflict, forbidden, notFound, validationError } from '../errors.js';
import { ARRIVAL_RADIUS_METERS, distanceKm, distanceMeters, etaMinutes } from '../geo.js';
import { PAYMENT_FORM, driverGrossOf, isCash, offerPriceFromDriverGross, priceOrder } from '../pricing.js';
import type { Pricing } from '../pricing.js';
import { isCancellationReason } from './cancellationReasons.js';
import type { CancelRole } from './cancellationReasons.js';
import type {
  BiddingStatus,
  OfferStatus,
  OrderCreatedData,
  OrderEvent,
  OrderRequest,
  OrderStatus,
} from './events.js';

/** Wrong delivery PINs allowed before attempts are refused for PIN_LOCK_MINUTES (4 digits: 10 000 guesses). */
export const PIN_MAX_ATTEMPTS = 5;
export const PIN_LOCK_MINUTES = 15;
/** A driver position older than this does not count as "recent" for arrival. */
export const LOCATION_FRESH_MINUTES = 5;

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

export interface CreateOrder extends OrderRequest {
  type: 'CreateOrder';
  orderId: number;
  clientId: number;
  waterPriceCents: number;
  /** usableCredit(credit, surplus ? 'surplus' : 'order'): the order's credit kind. */
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

const ms = (iso: string): number => Date.parse(iso);
const iso = (d: Date): string => d.toISOString();
const addMinutes = (d: Date, minutes: number): string => new Date(d.getTime() + minutes * 60_000).toISOString();

const isBidding = (status: OrderStatus): status is BiddingStatus => status === 'BROADCASTING' || status === 'COUNTER_OFFERED';
const TERMINAL: readonly OrderStatus[] = ['DELIVERED', 'CANCELLED', 'EXPIRED'];
const PAYMENT_METHOD_OPEN: readonly OrderStatus[] = ['BROADCASTING', 'COUNTER_OFFERED', 'WAITING_FOR_PAYMENT'];
const DELIVERABLE: readonly OrderStatus[] = ['CONFIRMED', 'IN_PROGRESS', 'ARRIVED'];

const pendingOffers = (s: Order): Offer[] => Object.values(s.offers).filter((o) => o.status === 'PENDING');

/** COUNTER_OFFERED while at least one pending offer names a price other than the published one. */
const biddingStatus = (basePriceCents: number, pending: Offer[]): BiddingStatus =>
  pending.some((o) => o.offerPriceCents !== basePriceCents) ? 'COUNTER_OFFERED' : 'BROADCASTING';

/** The offer POST /orders/{id}/accept-counter means: the latest pending, unexpired counter-offer. */
export const standingCounterOffer = (s: Order, now: Date): Offer | null =>
  pendingOffers(s)
    .filter((o) => o.offerPriceCents !== s.pricing.basePriceCents && ms(o.expiresAt) > now.getTime())
    .sort((a, b) => ms(b.createdAt) - ms(a.createdAt) || b.id - a.id)[0] ?? null;

/**
 * Some refusals must be recorded before they are reported (a wrong PIN counts towards the lock), so the
 * decider returns their events instead of throwing. After appending, the handler throws what this returns.
 */
export const failureOf = (events: OrderEvent[]): DomainError | null => {
  for (const e of events) {
    if (e.type === 'DeliveryPinRejected') {
      const attemptsLeft = e.data.lockedUntil ? 0 : PIN_MAX_ATTEMPTS - e.data.failedAttempts;
      return badRequest('DeliveryError', 'Wrong delivery PIN.', { attemptsLeft, lockedUntil: e.data.lockedUntil });
    }
  }
  return null;
};

const existing = (s: OrderState): Order => {
  if (!s) throw notFound('OrderNotFound', 'Order not found.');
  return s;
};

const assertAssignedDriver = (s: Order, driverId: number): void => {
  if (s.driverId !== driverId) throw forbidden('Forbidden', 'You are not the driver of this order.');
};

const paymentFormIdFor = (paymentMethod: string, paymentFormId: number | null): number | null => {
  if (paymentMethod !== PAYMENT_FORM) return null;
  if (paymentFormId === null) throw validationError({ paymentFormId: ['The payment form is required for PAYMENT_FORM.'] });
  return paymentFormId;
};

/** Nothing is left to pay for cash (collected on delivery) or when credit covers the whole order. */
const needsOnlinePayment = (pricing: Pricing): boolean => !isCash(pricing.paymentMethod) && !pricing.isFullyPromoted;

const creditKindOf = (surplusListingId: number | null): CreditKind => (surplusListingId === null ? 'order' : 'surplus');

const reprice = (s: Order, waterPriceCents: number, paymentMethod: string, creditAvailableCents: number): Pricing =>
  priceOrder({ waterPriceCents, paymentMethod, settings: s.pricingSettings, creditAvailableCents });

export const decide = (cmd: OrderCommand, state: OrderState): OrderEvent[] => {
  if (cmd.type === 'CreateOrder') {
    if (state) throw conflict('Conflict', 'The order already exists.');
    return createOrder(cmd);
  }
  const s = existing(state);
  const now = cmd.now.getTime();
  switch (cmd.type) {
    case 'PlaceOffer': {
      if (!isBidding(s.status) || now >= ms(s.expiresAt)) throw conflict('Conflict', 'The order is not open for offers.');
      if (s.offers[cmd.offerId]) throw conflict('Conflict', 'The offer already exists.');
      const overCapacity = s.litersRequested > cmd.driverRemainingLiters;
      if (overCapacity && !cmd.force) {
        throw conflict('InsufficientLiters', 'Not enough liters for this order.', {
          remaining_liters: cmd.driverRemainingLiters,
          requested_liters: s.litersRequested,
        });
      }
      const commissionPrc = s.pricingSettings.platformCommissionPrc;
      const offerPriceCents =
        cmd.driverGrossCents === null ? s.pricing.basePriceCents : offerPriceFromDriverGross(cmd.driverGrossCents, commissionPrc);
      const driverPosition =
        cmd.driverLatitude !== null && cmd.driverLongitude !== null ? { latitude: cmd.driverLatitude, longitude: cmd.driverLongitude } : null;
      const replaced = pendingOffers(s).find((o) => o.driverId === cmd.driverId) ?? null;
      const othersPending = pendingOffers(s).filter((o) => o !== replaced);
      const offer: Offer = {
        id: cmd.offerId,
        driverId: cmd.driverId,
        offerPriceCents,
        driverGrossCents: driverGrossOf(offerPriceCents, commissionPrc),
        estimatedMinutes: cmd.estimatedMinutes ?? (driverPosition ? etaMinutes(distanceKm(driverPosition, s)) : null),
        availableLiters: cmd.driverRemainingLiters,
        overCapacity,
        status: 'PENDING',
        driverLatitude: cmd.driverLatitude,
        driverLongitude: cmd.driverLongitude,
        createdAt: iso(cmd.now),
        updatedAt: iso(cmd.now),
        expiresAt: iso(cmd.offerExpiresAt),
      };
      return [
        {
          type: 'OfferPlaced',
          data: {
            orderId: s.id,
            offerId: offer.id,
            driverId: offer.driverId,
            offerPriceCents: offer.offerPriceCents,
            driverGrossCents: offer.driverGrossCents,
            estimatedMinutes: offer.estimatedMinutes,
            availableLiters: offer.availableLiters,
            overCapacity: offer.overCapacity,
            driverLatitude: offer.driverLatitude,
            driverLongitude: offer.driverLongitude,
            createdAt: offer.createdAt,
            expiresAt: offer.expiresAt,
            withdrawnOfferId: replaced?.id ?? null,
            orderStatus: biddingStatus(s.pricing.basePriceCents, [...othersPending, offer]),
          },
        },
      ];
    }

    case 'AcceptOffer': {
      if (cmd.clientId !== s.clientId) throw forbidden('Forbidden', 'This is not your order.');
      const offer = s.offers[cmd.offerId];
      if (!offer) throw notFound('NotFound', 'Offer not found.');
      if (!isBidding(s.status) || now >= ms(s.expiresAt) || offer.status !== 'PENDING' || now >= ms(offer.expiresAt)) {
        throw conflict('Conflict', 'The offer has expired or was already taken.');
      }
      if (cmd.driverBusy) throw conflict('Conflict', 'The driver is busy with another order.');
      // A driver who bid over capacity with force promised to refill; the others must still have the water.
      if (!offer.overCapacity && cmd.driverRemainingLiters < s.litersRequested) {
        throw conflict('InsufficientLiters', 'The driver no longer has enough liters.', {
          remaining_liters: cmd.driverRemainingLiters,
          requested_liters: s.litersRequested,
        });
      }
      const pricing = reprice(s, offer.offerPriceCents, s.paymentMethod, cmd.creditAvailableCents);
      const payOnline = needsOnlinePayment(pricing);
      return [
        {
          type: 'OfferAccepted',
          data: {
            orderId: s.id,
            offerId: offer.id,
            driverId: offer.driverId,
            clientId: s.clientId,
            litersRequested: s.litersRequested,
            pricing,
            creditKind: creditKindOf(s.surplusListingId),
            status: payOnline ? 'WAITING_FOR_PAYMENT' : 'CONFIRMED',
            paymentExpiresAt: payOnline ? iso(cmd.paymentExpiresAt) : null,
            acceptedAt: iso(cmd.now),
          },
        },
      ];
    }

    case 'RejectOffer': {
      if (cmd.clientId !== s.clientId) throw forbidden('Forbidden', 'This is not your order.');
      const offer = s.offers[cmd.offerId];
      if (!offer) throw notFound('NotFound', 'Offer not found.');
      if (offer.status !== 'PENDING') throw conflict('Conflict', 'The offer can no longer be rejected.');
      const remaining = pendingOffers(s).filter((o) => o.id !== offer.id);
      return [
        {
          type: 'OfferRejected',
          data: {
            orderId: s.id,
            offerId: offer.id,
            driverId: offer.driverId,
            rejectedAt: iso(cmd.now),
            orderStatus: biddingStatus(s.pricing.basePriceCents, remaining),
          },
        },
      ];
    }

    case 'ExpireOffer': {
      const offer = s.offers[cmd.offerId];
      if (!offer) throw notFound('NotFound', 'Offer not found.');
      // A timer: once the offer is settled, or if it fires early, there is nothing to do.
      if (offer.status !== 'PENDING' || now < ms(offer.expiresAt)) return [];
      const remaining = pendingOffers(s).filter((o) => o.id !== offer.id);
      return [
        {
          type: 'OfferExpired',
          data: {
            orderId: s.id,
            offerId: offer.id,
            driverId: offer.driverId,
            expiredAt: iso(cmd.now),
            orderStatus: biddingStatus(s.pricing.basePriceCents, remaining),
          },
        },
      ];
    }

    case 'ChangePaymentMethod': {
      if (cmd.clientId !== s.clientId) throw notFound('OrderNotFound', 'Order not found.');
      if (!PAYMENT_METHOD_OPEN.includes(s.status)) throw conflict('PaymentMethodLocked', 'The order is past payment.');
      if (s.status === 'WAITING_FOR_PAYMENT') {
        if (s.reportedPaymentId !== null) throw conflict('PaymentMethodLocked', 'A payment was already reported.');
        if (isCash(cmd.paymentMethod)) throw conflict('PaymentMethodLocked', 'Cannot switch to cash after acceptance.');
      }
      const paymentFormId = paymentFormIdFor(cmd.paymentMethod, cmd.paymentFormId);
      const pricing = reprice(s, s.pricing.basePriceCents, cmd.paymentMethod, cmd.creditAvailableCents);
      const unchanged =
        cmd.paymentMethod === s.paymentMethod && paymentFormId === s.paymentFormId && pricing.promoCreditCents === s.pricing.promoCreditCents;
      if (unchanged) return [];
      return [
        {
          type: 'PaymentMethodChanged',
          data: {
            orderId: s.id,
            clientId: s.clientId,
            paymentMethod: cmd.paymentMethod,
            paymentFormId,
            pricing,
            creditKind: creditKindOf(s.surplusListingId),
            status: s.status === 'WAITING_FOR_PAYMENT' && !needsOnlinePayment(pricing) ? 'CONFIRMED' : s.status,
            changedAt: iso(cmd.now),
          },
        },
      ];
    }

    case 'ReportPayment': {
      if (s.reportedPaymentId === cmd.paymentId) return [];
      if (s.status !== 'WAITING_FOR_PAYMENT') throw conflict('Conflict', 'The order is not waiting for payment.');
      if (s.reportedPaymentId !== null) throw conflict('Conflict', 'Another payment is already under review.');
      return [{ type: 'PaymentReported', data: { orderId: s.id, paymentId: cmd.paymentId, reportedAt: iso(cmd.now) } }];
    }

    case 'RejectPayment': {
      if (s.status !== 'WAITING_FOR_PAYMENT' || s.reportedPaymentId !== cmd.paymentId) return [];
      return [{ type: 'PaymentRejected', data: { orderId: s.id, paymentId: cmd.paymentId, rejectedAt: iso(cmd.now) } }];
    }

    case 'ConfirmPayment': {
      if (s.paidPaymentId === cmd.paymentId) return [];
      if (s.status !== 'WAITING_FOR_PAYMENT') throw conflict('Conflict', 'The order is not waiting for payment.');
      return [{ type: 'OrderPaid', data: { orderId: s.id, paymentId: cmd.paymentId, paidAt: iso(cmd.now) } }];
    }

    case 'StartTrip': {
      assertAssignedDriver(s, cmd.driverId);
      if (s.status !== 'CONFIRMED') throw conflict('Conflict', 'The trip cannot be started now.');
      return [{ type: 'TripStarted', data: { orderId: s.id, driverId: cmd.driverId, startedAt: iso(cmd.now) } }];
    }

    case 'RecordLocation': {
      assertAssignedDriver(s, cmd.driverId);
      if (s.status !== 'IN_PROGRESS' && s.status !== 'ARRIVED') throw conflict('WrongStatus', 'Location is accepted only during the trip.');
      return [
        {
          type: 'DriverLocationRecorded',
          data: { orderId: s.id, driverId: cmd.driverId, latitude: cmd.latitude, longitude: cmd.longitude, recordedAt: iso(cmd.now) },
        },
      ];
    }

    case 'MarkArrived': {
      assertAssignedDriver(s, cmd.driverId);
      if (s.status === 'ARRIVED') return [];
      if (s.status !== 'IN_PROGRESS') throw conflict('WrongStatus', 'The order is not in progress.');
      const location = s.driverLocation;
      if (!location || now - ms(location.recordedAt) > LOCATION_FRESH_MINUTES * 60_000) {
        throw conflict('NoLocation', 'No recent driver location.');
      }
      const meters = distanceMeters(location, s);
      if (meters > ARRIVAL_RADIUS_METERS) {
        throw conflict('TooFarFromDestination', 'Too far from the destination.', { distanceKm: Math.round(meters) / 1000 });
      }
      return [{ type: 'DriverArrived', data: { orderId: s.id, driverId: cmd.driverId, arrivedAt: iso(cmd.now), distanceMeters: Math.round(meters) } }];
    }

    case 'Deliver': {
      assertAssignedDriver(s, cmd.driverId);
      if (!DELIVERABLE.includes(s.status)) throw conflict('DeliveryError', 'The order is not deliverable.');
      if (s.pinLockedUntil && now < ms(s.pinLockedUntil)) {
        throw conflict('DeliveryError', 'Too many wrong PINs; try again later.', { lockedUntil: s.pinLockedUntil });
      }
      // The platform pays the credited part (to the driver, as a reimbursement): only credit really redeemed counts.
      const promo = s.pricing.promoCreditCents;
      if (promo > 0 && cmd.redeemedCreditCents !== promo) {
        throw conflict('DeliveryError', 'The promotional credit of this order is not valid.');
      }
      if (cmd.deliveryPin !== s.deliveryPin) {
        const failedAttempts = s.failedPinAttempts + 1;
        return [
          {
            type: 'DeliveryPinRejected',
            data: {
              orderId: s.id,
              driverId: cmd.driverId,
              failedAttempts,
              lockedUntil: failedAttempts >= PIN_MAX_ATTEMPTS ? addMinutes(cmd.now, PIN_LOCK_MINUTES) : null,
              attemptedAt: iso(cmd.now),
            },
          },
        ];
      }
      return [
        {
          type: 'OrderDelivered',
          data: {
            orderId: s.id,
            clientId: s.clientId,
            driverId: cmd.driverId,
            litersRequested: s.litersRequested,
            actualLiters: cmd.actualLiters,
            paymentMethod: s.paymentMethod,
            pricing: s.pricing,
            isValidPromotion: promo > 0,
            deliveredAt: iso(cmd.now),
          },
        },
      ];
    }

    case 'CancelOrder': {
      const { role, userId } = cmd.actor;
      const mayCancel =
        role === 'ADMIN' || (role === 'CLIENT' && userId === s.clientId) || (role === 'DRIVER' && userId === s.driverId);
      if (!mayCancel) throw forbidden('CancelError', 'You may not cancel this order.');
      if (TERMINAL.includes(s.status)) throw conflict('CancelError', 'The order can no longer be cancelled.');
      if (cmd.reasonCode !== null && !isCancellationReason(role, cmd.reasonCode)) {
        throw validationError({ reason_code: ['Not a cancellation reason for your role.'] });
      }
      return [
        {
          type: 'OrderCancelled',
          data: {
            orderId: s.id,
            clientId: s.clientId,
            surplusListingId: s.surplusListingId,
            cancelledByRole: role,
            cancelledById: userId,
            reasonCode: cmd.reasonCode,
            reason: cmd.reason,
            previousStatus: s.status,
            driverId: s.driverId,
            litersRequested: s.litersRequested,
            refundDueCents: s.paidAt ? s.pricing.clientChargedCents : 0,
            cancelledAt: iso(cmd.now),
          },
        },
      ];
    }

    case 'ExpireOrder': {
      const base = { orderId: s.id, clientId: s.clientId, surplusListingId: s.surplusListingId, litersRequested: s.litersRequested, expiredAt: iso(cmd.now) };
      if (isBidding(s.status) && now >= ms(s.expiresAt)) {
        return [{ type: 'OrderExpired', data: { ...base, previousStatus: s.status, releasedOfferId: null, driverId: null } }];
      }
      // A payment under review holds the order until the review ends (RejectPayment reopens the expiry).
      const paymentWindowOver = s.paymentExpiresAt !== null && now >= ms(s.paymentExpiresAt) && s.reportedPaymentId === null;
      if (s.status === 'WAITING_FOR_PAYMENT' && paymentWindowOver) {
        return [
          {
            type: 'OrderExpired',
            data: { ...base, previousStatus: 'WAITING_FOR_PAYMENT', releasedOfferId: s.acceptedOfferId, driverId: s.driverId },
          },
        ];
      }
      return [];
    }
  }
};

const createOrder = (cmd: CreateOrder): OrderEvent[] => {
  const paymentFormId = paymentFormIdFor(cmd.paymentMethod, cmd.paymentFormId);
  const pricing = priceOrder({
    waterPriceCents: cmd.waterPriceCents,
    paymentMethod: cmd.paymentMethod,
    settings: cmd.pricingSettings,
    creditAvailableCents: cmd.creditAvailableCents,
  });
  const payOnline = cmd.surplus !== null && needsOnlinePayment(pricing);
  return [
    {
      type: 'OrderCreated',
      data: {
        orderId: cmd.orderId,
        clientId: cmd.clientId,
        surplusListingId: cmd.surplus?.listingId ?? null,
        driverId: cmd.surplus?.driverId ?? null,
        cityId: cmd.cityId,
        status: cmd.surplus === null ? 'BROADCASTING' : payOnline ? 'WAITING_FOR_PAYMENT' : 'CONFIRMED',
        latitude: cmd.latitude,
        longitude: cmd.longitude,
        address: cmd.address,
        addressReference: cmd.addressReference,
        litersRequested: cmd.litersRequested,
        waterType: cmd.waterType,
        paymentMethod: cmd.paymentMethod,
        paymentFormId,
        notes: cmd.notes,
        accessInstructions: cmd.accessInstructions,
        billing: cmd.billing,
        officialRateCents: cmd.officialRateCents,
        pricingSettings: cmd.pricingSettings,
        pricing,
        creditKind: creditKindOf(cmd.surplus?.listingId ?? null),
        deliveryPin: cmd.deliveryPin,
        createdAt: iso(cmd.now),
        expiresAt: iso(cmd.expiresAt),
        paymentExpiresAt: payOnline && cmd.surplus ? iso(cmd.surplus.paymentExpiresAt) : null,
      },
    },
  ];
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

const setOfferStatus = (offers: Record<number, Offer>, id: number, status: OfferStatus, at: string): Record<number, Offer> => ({
  ...offers,
  [id]: { ...offers[id], status, updatedAt: at },
});

/** Offers still pending when the order leaves bidding are closed without a verdict: WITHDRAWN. */
const withdrawPending = (offers: Record<number, Offer>, at: string): Record<number, Offer> =>
  Object.fromEntries(
    Object.values(offers).map((o) => [o.id, o.status === 'PENDING' ? { ...o, status: 'WITHDRAWN' as const, updatedAt: at } : o]),
  );

export const evolve = (state: OrderState, e: OrderEvent): OrderState => {
  if (e.type === 'OrderCreated') return fromCreated(e.data);
  if (!state) throw new Error(`${e.type} before OrderCreated`);
  const s = state;
  switch (e.type) {
    case 'OfferPlaced': {
      const d = e.data;
      const offers = d.withdrawnOfferId === null ? s.offers : setOfferStatus(s.offers, d.withdrawnOfferId, 'WITHDRAWN', d.createdAt);
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
      return { ...s, status: e.data.orderStatus, offers: setOfferStatus(s.offers, e.data.offerId, 'REJECTED', e.data.rejectedAt) };
    case 'OfferExpired':
      return { ...s, status: e.data.orderStatus, offers: setOfferStatus(s.offers, e.data.offerId, 'EXPIRED', e.data.expiredAt) };
    case 'PaymentMethodChanged':
      return { ...s, status: e.data.status, paymentMethod: e.data.paymentMethod, paymentFormId: e.data.paymentFormId, pricing: e.data.pricing };
    case 'PaymentReported':
      return { ...s, reportedPaymentId: e.data.paymentId };
    case 'PaymentRejected':
      return { ...s, reportedPaymentId: null };
    case 'OrderPaid':
      return { ...s, status: 'CONFIRMED', paidPaymentId: e.data.paymentId, paidAt: e.data.paidAt };
    case 'TripStarted':
      return { ...s, status: 'IN_PROGRESS', startedAt: e.data.startedAt };
    case 'DriverLocationRecorded':
      return { ...s, driverLocation: { latitude: e.data.latitude, longitude: e.data.longitude, recordedAt: e.data.recordedAt } };
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
      return { ...s, status: 'CANCELLED', cancelledAt: e.data.cancelledAt, offers: withdrawPending(s.offers, e.data.cancelledAt) };
    case 'OrderExpired': {
      const d = e.data;
      const offers = d.releasedOfferId === null ? s.offers : setOfferStatus(s.offers, d.releasedOfferId, 'EXPIRED', d.expiredAt);
      return { ...s, status: 'EXPIRED', expiredAt: d.expiredAt, offers: withdrawPending(offers, d.expiredAt) };
    }
  }
};

export const orderDecider: Decider<OrderCommand, OrderState, OrderEvent> = { initialState, evolve, decide };
