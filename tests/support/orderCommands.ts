import type { CreateOrder } from '../../domain/order/commands.js';
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
