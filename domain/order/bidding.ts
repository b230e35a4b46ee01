import { creditKindOf } from '../credit/credit.js';
import { conflict, forbidden, notFound } from '../errors.js';
import { distanceKm, etaMinutes } from '../geo.js';
import { driverGrossOf, offerPriceFromDriverGross } from '../pricing.js';
import { ms, iso } from '../time.js';
import { isBidding, pendingOffers, biddingStatus, needsOnlinePayment, reprice } from './rules.js';
import type { PlaceOffer, AcceptOffer, RejectOffer, ExpireOffer } from './commands.js';
import type { OrderEvent } from './events.js';
import type { Offer, Order } from './order.js';

/** Bidding: drivers' offers and the client's answer, until an offer is accepted. */

/** The offer POST /orders/{id}/accept-counter means: the latest pending, unexpired counter-offer. */
export const standingCounterOffer = (s: Order, now: Date): Offer | null =>
  pendingOffers(s)
    .filter((o) => o.offerPriceCents !== s.pricing.basePriceCents && ms(o.expiresAt) > now.getTime())
    .sort((a, b) => ms(b.createdAt) - ms(a.createdAt) || b.id - a.id)[0] ?? null;

export const placeOffer = (s: Order, cmd: PlaceOffer): OrderEvent[] => {
  const now = cmd.now.getTime();
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
    cmd.driverGrossCents === null
      ? s.pricing.basePriceCents
      : offerPriceFromDriverGross(cmd.driverGrossCents, commissionPrc);
  const driverPosition =
    cmd.driverLatitude !== null && cmd.driverLongitude !== null
      ? { latitude: cmd.driverLatitude, longitude: cmd.driverLongitude }
      : null;
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
};

export const acceptOffer = (s: Order, cmd: AcceptOffer): OrderEvent[] => {
  const now = cmd.now.getTime();
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
};

export const rejectOffer = (s: Order, cmd: RejectOffer): OrderEvent[] => {
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
};

export const expireOffer = (s: Order, cmd: ExpireOffer): OrderEvent[] => {
  const now = cmd.now.getTime();
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
};
