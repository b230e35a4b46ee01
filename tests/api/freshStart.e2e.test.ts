import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeRatesModule } from '../../app/modules/exchangeRates.js';
import { officialRateAt } from '../../stores/exchangeRates/exchangeRateQueries.js';
import { signInClient } from '../support/actors.js';
import { call, orderBody } from '../support/orderFlows.js';
import { PRODUCTION_ENV, startTestService, type TestService } from '../support/testService.js';

/** Issue #14: `npm start` with no settings, a new user signs in with the returned OTP and orders. */
describe('a fresh start with no settings', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(async () => {
    await t?.stop();
  });

  it("accepts a new user's first order on the seeded development rate", async () => {
    const client = await signInClient(t);
    const created = await call(t).post('/orders', client.token, orderBody());
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await officialRateAt(t.service.ctx.db, t.service.ctx.clock.now()))?.rate).toBe(36.5);
  });

  it('seeds the development rate once, even when instances start together', async () => {
    const ctx = t.service.ctx;
    await Promise.all(
      [1, 2, 3].map(() => exchangeRatesModule.init!({ ...ctx, config: { ...ctx.config, DEVELOPMENT_RATE_VES: 50 } })),
    );
    const rows = await ctx.db.selectFrom('exchange_rates').select('rate').execute();
    expect(rows.map((r) => Number(r.rate))).toEqual([36.5]);
  });

  it('never seeds a development rate in production', async () => {
    const production = await startTestService({ env: PRODUCTION_ENV });
    try {
      expect(await officialRateAt(production.service.ctx.db, new Date('2100-01-01'))).toBeNull();
    } finally {
      await production.stop();
    }
  });
});
