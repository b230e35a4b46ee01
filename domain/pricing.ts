import { z } from 'zod';
import { grossUpByPercent, percentOf, remainderAfterPercent } from './money.js';

/**
 * docs/domain-rules.md's money table. Settings are percentages (10 means 10 %), snapshotted on the order at creation.
 */
export const PricingSettings = z.object({
  platformCommissionPrc: z.number(),
  clientSolidaryPrc: z.number(),
  driverSolidaryPrc: z.number(),
  platformSolidaryPrc: z.number(),
});
export type PricingSettings = z.infer<typeof PricingSettings>;

export const CASH_USD = 'CASH_USD';
export const PAYMENT_FORM = 'PAYMENT_FORM';

export const isCash = (paymentMethod: string): boolean => paymentMethod === CASH_USD;

/**
 * `code` names the line, `type` says how it adds up:
 * - charge lines (base_price, client_solidary) sum to clientPaysCents;
 *   clientPaysCents + the adjustment line (promo_credit, negative,
 *   present only when credit applies) = clientChargedCents;
 * - base_price − the deduction lines (platform_revenue, driver_solidary) = driverReceivesCents;
 * - client_solidary + driver_solidary + platform_solidary (type contribution: the platform's own share,
 *   not paid by the client) = solidaryFundCents.
 * The three solidary lines are always present, 0 with applied_fee_prc 0 for CASH_USD.
 */
export const BREAKDOWN_CODES = [
  'base_price',
  'client_solidary',
  'driver_solidary',
  'platform_solidary',
  'platform_revenue',
  'promo_credit',
] as const;
export type BreakdownCode = (typeof BREAKDOWN_CODES)[number];
export const BREAKDOWN_TYPES = ['charge', 'deduction', 'contribution', 'adjustment'] as const;

export const BreakdownLine = z.object({
  code: z.enum(BREAKDOWN_CODES),
  type: z.enum(BREAKDOWN_TYPES),
  amount_cents: z.int(),
  applied_fee_prc: z.number().nullable(),
});
export type BreakdownLine = z.infer<typeof BreakdownLine>;

/** What an order costs and who gets what, as the events that price it record it. */
export const Pricing = z.object({
  paymentMethod: z.string(),
  basePriceCents: z.int(),
  driverGrossCents: z.int(),
  platformRevenueCents: z.int(),
  clientSolidaryCents: z.int(),
  driverSolidaryCents: z.int(),
  platformSolidaryCents: z.int(),
  clientPaysCents: z.int(),
  driverReceivesCents: z.int(),
  solidaryFundCents: z.int(),
  promoCreditCents: z.int(),
  clientChargedCents: z.int(),
  isFullyPromoted: z.boolean(),
  breakdown: z.array(BreakdownLine),
});
export type Pricing = z.infer<typeof Pricing>;

export interface PriceInput {
  /** W: the published price, or the accepted offer's price. */
  waterPriceCents: number;
  paymentMethod: string;
  settings: PricingSettings;
  /** Credit the client can spend on this order (already including what this order redeemed before a re-price). */
  creditAvailableCents: number;
}

export const driverGrossOf = (waterPriceCents: number, commissionPrc: number): number =>
  remainderAfterPercent(waterPriceCents, commissionPrc);

export const priceOrder = ({
  waterPriceCents: w,
  paymentMethod,
  settings,
  creditAvailableCents,
}: PriceInput): Pricing => {
  const cash = isCash(paymentMethod);
  const driverGrossCents = driverGrossOf(w, settings.platformCommissionPrc);
  const platformRevenueCents = w - driverGrossCents;
  const clientSolidaryPrc = cash ? 0 : settings.clientSolidaryPrc;
  const driverSolidaryPrc = cash ? 0 : settings.driverSolidaryPrc;
  const platformSolidaryPrc = cash ? 0 : settings.platformSolidaryPrc;
  const clientSolidaryCents = percentOf(w, clientSolidaryPrc);
  const driverSolidaryCents = percentOf(driverGrossCents, driverSolidaryPrc);
  const platformSolidaryCents = percentOf(w, platformSolidaryPrc);
  const clientPaysCents = w + clientSolidaryCents;
  const promoCreditCents = Math.min(Math.max(0, creditAvailableCents), clientPaysCents);
  const clientChargedCents = clientPaysCents - promoCreditCents;

  const breakdown: BreakdownLine[] = [
    { code: 'base_price', type: 'charge', amount_cents: w, applied_fee_prc: null },
    { code: 'client_solidary', type: 'charge', amount_cents: clientSolidaryCents, applied_fee_prc: clientSolidaryPrc },
    {
      code: 'platform_revenue',
      type: 'deduction',
      amount_cents: platformRevenueCents,
      applied_fee_prc: settings.platformCommissionPrc,
    },
    {
      code: 'driver_solidary',
      type: 'deduction',
      amount_cents: driverSolidaryCents,
      applied_fee_prc: driverSolidaryPrc,
    },
    {
      code: 'platform_solidary',
      type: 'contribution',
      amount_cents: platformSolidaryCents,
      applied_fee_prc: platformSolidaryPrc,
    },
  ];
  if (promoCreditCents > 0)
    breakdown.push({
      code: 'promo_credit',
      type: 'adjustment',
      amount_cents: -promoCreditCents,
      applied_fee_prc: null,
    });

  return {
    paymentMethod,
    basePriceCents: w,
    driverGrossCents,
    platformRevenueCents,
    clientSolidaryCents,
    driverSolidaryCents,
    platformSolidaryCents,
    clientPaysCents,
    driverReceivesCents: driverGrossCents - driverSolidaryCents,
    solidaryFundCents: clientSolidaryCents + driverSolidaryCents + platformSolidaryCents,
    promoCreditCents,
    clientChargedCents,
    isFullyPromoted: clientChargedCents === 0,
    breakdown,
  };
};

/**
 * The offer price whose driver gross is exactly `driverGrossCents`: W = round(g / k) with k = 1 − commission.
 * No search is needed: |W − g/k| ≤ ½ gives |W·k − g| ≤ k/2 < ½, so round(W·k) = g whenever k < 1 (and W = g
 * when k = 1). Both roundings are exact integer arithmetic, so float error cannot break this.
 */
export const offerPriceFromDriverGross = (driverGrossCents: number, commissionPrc: number): number =>
  grossUpByPercent(driverGrossCents, commissionPrc);
