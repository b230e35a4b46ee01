import type { Pricing } from '../../domain/pricing.js';

/** A 25.00 USD order's pricing as the pricing rules give it (10 % commission, 1 % solidary each side), paid online. */
export const samplePricing = (over: Partial<Pricing> = {}): Pricing => ({
  paymentMethod: 'PAYPROV_DI',
  basePriceCents: 2500,
  driverGrossCents: 2250,
  platformRevenueCents: 250,
  clientSolidaryCents: 25,
  driverSolidaryCents: 23,
  platformSolidaryCents: 0,
  clientPaysCents: 2525,
  driverReceivesCents: 2227,
  solidaryFundCents: 48,
  promoCreditCents: 0,
  clientChargedCents: 2525,
  isFullyPromoted: false,
  breakdown: [],
  ...over,
});
