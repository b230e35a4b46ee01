import type { AcceptOffer, CreateOrder, PlaceOffer } from '../../domain/order/commands.js';
import type { PricingSettings } from '../../domain/pricing.js';

/** 10 % platform commission, 1 % solidary contribution from the client and from the driver. */
export const PRICING_SETTINGS: PricingSettings = {
  platformCommissionPrc: 10,
  clientSolidaryPrc: 1,
  driverSolidaryPrc: 1,
  platformSolidaryPrc: 0,
};

/**
 * A client's order as the handler hands it to the decider: 1000 liters of drinking water at 100.00 USD, cash,
 * in Caracas, open to offers for 30 minutes from `now`. A test overrides what its assertions depend on.
 */
export const createOrderCommand = (orderId: number, now: Date, over: Partial<CreateOrder> = {}): CreateOrder => ({
  type: 'CreateOrder',
  orderId,
  clientId: 7,
  latitude: 10.48,
  longitude: -66.9,
  address: 'Av. Principal',
  addressReference: null,
  litersRequested: 1000,
  waterPriceCents: 10000,
  waterType: 'POTABLE',
  paymentMethod: 'CASH_USD',
  paymentFormId: null,
  notes: null,
  accessInstructions: null,
  billing: null,
  officialRateCents: 3650,
  pricingSettings: PRICING_SETTINGS,
  creditAvailableCents: 0,
  deliveryPin: '1234',
  cityId: null,
  now,
  expiresAt: new Date(now.getTime() + 30 * 60_000),
  surplus: null,
  ...over,
});

/**
 * A driver's bid as the handler hands it to the decider: the order's published price (no counter-offer), 10 minutes
 * away, 5000 liters left in the tank, not forced, no position, open for 10 minutes from `now`.
 */
export const placeOfferCommand = (
  offerId: number,
  driverId: number,
  now: Date,
  over: Partial<PlaceOffer> = {},
): PlaceOffer => ({
  type: 'PlaceOffer',
  offerId,
  driverId,
  driverGrossCents: null,
  estimatedMinutes: 10,
  driverRemainingLiters: 5000,
  force: false,
  driverLatitude: null,
  driverLongitude: null,
  now,
  offerExpiresAt: new Date(now.getTime() + 10 * 60_000),
  ...over,
});

/**
 * Client 7 accepting an offer as the handler hands it to the decider: the driver has 5000 liters left and no
 * active order, the client no usable credit, and the payment is due 30 minutes from `now`.
 */
export const acceptOfferCommand = (offerId: number, now: Date, over: Partial<AcceptOffer> = {}): AcceptOffer => ({
  type: 'AcceptOffer',
  offerId,
  clientId: 7,
  driverRemainingLiters: 5000,
  driverBusy: false,
  creditAvailableCents: 0,
  now,
  paymentExpiresAt: new Date(now.getTime() + 30 * 60_000),
  ...over,
});
