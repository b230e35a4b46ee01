import { describe, expect, it } from 'vitest';
import { driverGrossOf, offerPriceFromDriverGross, priceOrder } from './pricing.js';
import type { Pricing, PricingSettings } from './pricing.js';

const settings: PricingSettings = {
  platformCommissionPrc: 10,
  clientSolidaryPrc: 1,
  driverSolidaryPrc: 1,
  platformSolidaryPrc: 0,
};

const price = (w: number, paymentMethod: string, creditAvailableCents = 0, s: PricingSettings = settings): Pricing =>
  priceOrder({ waterPriceCents: w, paymentMethod, settings: s, creditAvailableCents });

const line = (p: Pricing, code: string) => p.breakdown.find((l) => l.code === code);

/** Every identity the money table (docs/domain-rules.md) and pricing.ts's breakdown promise; names those broken. */
const brokenIdentities = (p: Pricing): string[] => {
  const sum = (type: string) => p.breakdown.filter((l) => l.type === type).reduce((s, l) => s + l.amount_cents, 0);
  const amount = (code: string) => line(p, code)?.amount_cents ?? 0;
  const identities: Record<string, boolean> = {
    'charges = client pays': sum('charge') === p.clientPaysCents,
    'charges + adjustment = client charged': sum('charge') + sum('adjustment') === p.clientChargedCents,
    'base − deductions = driver receives': p.basePriceCents - sum('deduction') === p.driverReceivesCents,
    'solidary lines = fund':
      amount('client_solidary') + amount('driver_solidary') + amount('platform_solidary') === p.solidaryFundCents,
    'gross + revenue = base': p.driverGrossCents + p.platformRevenueCents === p.basePriceCents,
    'pays − promo = charged': p.clientPaysCents - p.promoCreditCents === p.clientChargedCents,
    'charged ≥ 0': p.clientChargedCents >= 0,
    'fully promoted iff charged 0': p.isFullyPromoted === (p.clientChargedCents === 0),
    'integer lines': p.breakdown.every((l) => Number.isInteger(l.amount_cents)),
  };
  return Object.entries(identities)
    .filter(([, holds]) => !holds)
    .map(([name]) => name);
};
const expectConsistent = (p: Pricing) => expect(brokenIdentities(p)).toEqual([]);

describe('priceOrder, online methods', () => {
  it.each([
    // W, driverGross, platformRevenue, clientSolidary, driverSolidary, clientPays, driverReceives, solidaryFund
    [1, 1, 0, 0, 0, 1, 1, 0],
    [5, 5, 0, 0, 0, 5, 5, 0], // 4.5 rounds up to 5
    [15, 14, 1, 0, 0, 15, 14, 0], // 13.5 → 14
    [50, 45, 5, 1, 0, 51, 45, 1], // client 0.5 → 1, driver 0.45 → 0
    [99, 89, 10, 1, 1, 100, 88, 2],
    [150, 135, 15, 2, 1, 152, 134, 3], // client 1.5 → 2, driver 1.35 → 1
    [12345, 11111, 1234, 123, 111, 12468, 11000, 234], // 11110.5 → 11111
  ])('W=%i', (w, gross, revenue, clientSol, driverSol, pays, receives, fund) => {
    for (const method of ['EXCHANGE_PAY', 'PAYMENT_FORM', 'PAYPROV_DI']) {
      const p = price(w, method);
      expect(p).toMatchObject({
        paymentMethod: method,
        basePriceCents: w,
        driverGrossCents: gross,
        platformRevenueCents: revenue,
        clientSolidaryCents: clientSol,
        driverSolidaryCents: driverSol,
        clientPaysCents: pays,
        driverReceivesCents: receives,
        solidaryFundCents: fund,
        promoCreditCents: 0,
        clientChargedCents: pays,
        isFullyPromoted: false,
      });
      expectConsistent(p);
    }
  });

  it('lists the lines with their fees, and no promo line without credit', () => {
    expect(price(12345, 'EXCHANGE_PAY').breakdown).toEqual([
      { code: 'base_price', type: 'charge', amount_cents: 12345, applied_fee_prc: null },
      { code: 'client_solidary', type: 'charge', amount_cents: 123, applied_fee_prc: 1 },
      { code: 'platform_revenue', type: 'deduction', amount_cents: 1234, applied_fee_prc: 10 },
      { code: 'driver_solidary', type: 'deduction', amount_cents: 111, applied_fee_prc: 1 },
      { code: 'platform_solidary', type: 'contribution', amount_cents: 0, applied_fee_prc: 0 },
    ]);
  });

  it("adds the platform's own share to the fund, not to what the client pays", () => {
    const p = price(12345, 'EXCHANGE_PAY', 0, { ...settings, platformSolidaryPrc: 0.5 });
    expect(p.platformSolidaryCents).toBe(62); // 61.725
    expect(p.solidaryFundCents).toBe(123 + 111 + 62);
    expect(p.clientPaysCents).toBe(12468);
    expectConsistent(p);
  });
});

describe('priceOrder, CASH_USD', () => {
  it.each([
    [1, 1, 0],
    [5, 5, 0],
    [15, 14, 1],
    [99, 89, 10],
    [12345, 11111, 1234],
  ])('W=%i carries no solidary contribution', (w, gross, revenue) => {
    const p = price(w, 'CASH_USD');
    expect(p).toMatchObject({
      basePriceCents: w,
      driverGrossCents: gross,
      platformRevenueCents: revenue,
      clientSolidaryCents: 0,
      driverSolidaryCents: 0,
      platformSolidaryCents: 0,
      clientPaysCents: w,
      driverReceivesCents: gross,
      solidaryFundCents: 0,
      clientChargedCents: w,
    });
    for (const code of ['client_solidary', 'driver_solidary', 'platform_solidary']) {
      expect(line(p, code)).toMatchObject({ amount_cents: 0, applied_fee_prc: 0 });
    }
    expectConsistent(p);
  });
});

describe('promotional credit', () => {
  it('covers part of an online order', () => {
    const p = price(12345, 'EXCHANGE_PAY', 5000);
    expect(p).toMatchObject({
      clientPaysCents: 12468,
      promoCreditCents: 5000,
      clientChargedCents: 7468,
      isFullyPromoted: false,
    });
    expect(line(p, 'promo_credit')).toEqual({
      code: 'promo_credit',
      type: 'adjustment',
      amount_cents: -5000,
      applied_fee_prc: null,
    });
    expectConsistent(p);
  });

  it('covers a whole order, never more than client pays', () => {
    const online = price(12345, 'EXCHANGE_PAY', 20000);
    expect(online).toMatchObject({ promoCreditCents: 12468, clientChargedCents: 0, isFullyPromoted: true });
    expectConsistent(online);
    const cash = price(99, 'CASH_USD', 99);
    expect(cash).toMatchObject({ promoCreditCents: 99, clientChargedCents: 0, isFullyPromoted: true });
    expectConsistent(cash);
  });

  it('changes nothing for the driver', () => {
    const without = price(12345, 'CASH_USD');
    const withCredit = price(12345, 'CASH_USD', 345);
    expect(withCredit.driverReceivesCents).toBe(without.driverReceivesCents);
    expect(withCredit.clientChargedCents).toBe(12000);
  });

  it('ignores a negative credit figure', () => {
    expect(price(100, 'CASH_USD', -50).promoCreditCents).toBe(0);
  });
});

describe('the identities hold for every price', () => {
  it('W = 1 … 20000, both kinds of method, with and without credit', () => {
    const odd = {
      platformCommissionPrc: 12.5,
      clientSolidaryPrc: 1.5,
      driverSolidaryPrc: 0.75,
      platformSolidaryPrc: 0.3,
    };
    const broken: string[] = [];
    for (let w = 1; w <= 20000; w++) {
      for (const method of ['CASH_USD', 'EXCHANGE_PAY']) {
        for (const p of [price(w, method, w % 3 === 0 ? w : w % 97), price(w, method, w % 5, odd)]) {
          broken.push(...brokenIdentities(p).map((name) => `W=${w} ${method}: ${name}`));
        }
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('offerPriceFromDriverGross', () => {
  it('gives back exactly the driver gross, for every g and several commissions', () => {
    const misses: string[] = [];
    for (const commission of [10, 0, 12.5, 33, 7.3, 50, 99]) {
      for (let g = 0; g <= 20000; g++) {
        const offerPrice = offerPriceFromDriverGross(g, commission);
        if (driverGrossOf(offerPrice, commission) !== g) misses.push(`${commission}%: g=${g} → ${offerPrice}`);
      }
    }
    expect(misses).toEqual([]);
    expect(price(offerPriceFromDriverGross(11111, 10), 'EXCHANGE_PAY').driverGrossCents).toBe(11111);
  });

  it('is round(g / (1 − commission))', () => {
    expect(offerPriceFromDriverGross(9000, 10)).toBe(10000);
    expect(offerPriceFromDriverGross(11111, 10)).toBe(12346); // 12345.67; 12346 × 0.9 = 11111.4 → 11111
    expect(offerPriceFromDriverGross(1, 10)).toBe(1);
    expect(offerPriceFromDriverGross(5, 10)).toBe(6); // 5.56; 6 × 0.9 = 5.4 → 5
  });
});
