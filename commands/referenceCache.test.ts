import { describe, expect, it } from 'vitest';
import { createInProcessBus } from '../infra/bus/inProcessBus.js';
import { ManualClock } from '../infra/clock.js';
import type { ExchangeRate } from '../stores/exchangeRates/exchangeRates.js';
import type { PaymentMethod } from '../stores/paymentMethods/paymentMethods.js';
import { cachedReferenceData } from './referenceCache.js';
import type { ReferenceData } from './referenceData.js';

/**
 * A lookup already under way when its record changes may bring back the old value: the cache must not keep
 * it (docs/decisions/0073). The reads are held here so that the change lands while they are in flight.
 */
const held = <T>() => {
  let release!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (release = resolve));
  return { promise, release };
};

/** Reference data whose answers the test gives one read at a time. */
const scripted = () => {
  const rates: ReturnType<typeof held<ExchangeRate | null>>[] = [];
  const methods: ReturnType<typeof held<PaymentMethod | null>>[] = [];
  const inner = {
    officialRate: () => {
      const read = held<ExchangeRate | null>();
      rates.push(read);
      return read.promise;
    },
    paymentMethod: () => {
      const read = held<PaymentMethod | null>();
      methods.push(read);
      return read.promise;
    },
  } as unknown as ReferenceData;
  return { inner, rates, methods };
};

const rate = (id: number, rateCents: number): ExchangeRate => ({
  id,
  currency: 'VES',
  rate: rateCents / 100,
  rateCents,
  effectiveAt: new Date('2026-11-28T00:00:00Z'),
});

describe('reference data cache: a change while a lookup is in flight', () => {
  it('does not keep the old rate a lookup brings back after the rates were forgotten', async () => {
    const clock = new ManualClock('2026-11-28T12:00:00Z');
    const { inner, rates } = scripted();
    const cache = cachedReferenceData(inner, clock, createInProcessBus());
    const inFlight = cache.officialRate(clock.now());
    cache.forget({ kind: 'rates' });
    rates[0].release(rate(1, 3650));
    expect(await inFlight).toMatchObject({ rateCents: 3650 });

    const next = cache.officialRate(clock.now());
    expect(rates).toHaveLength(2);
    rates[1].release(rate(2, 4000));
    expect(await next).toMatchObject({ rateCents: 4000 });
    // Read once the change was known: that one is kept.
    expect(await cache.officialRate(clock.now())).toMatchObject({ rateCents: 4000 });
    expect(rates).toHaveLength(2);
  });

  it('does not keep a payment method read before the methods were forgotten', async () => {
    const clock = new ManualClock('2026-11-28T12:00:00Z');
    const { inner, methods } = scripted();
    const cache = cachedReferenceData(inner, clock, createInProcessBus());
    const inFlight = cache.paymentMethod('CASH_USD');
    cache.forget({ kind: 'paymentMethods' });
    methods[0].release({ code: 'CASH_USD', isActive: true } as unknown as PaymentMethod);
    await inFlight;

    const next = cache.paymentMethod('CASH_USD');
    expect(methods).toHaveLength(2);
    methods[1].release({ code: 'CASH_USD', isActive: false } as unknown as PaymentMethod);
    expect(await next).toMatchObject({ isActive: false });
  });
});
