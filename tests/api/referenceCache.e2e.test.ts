import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_CACHE_MS } from '../../commands/referenceCache.js';
import { signInAdmin, signInClient } from '../support/actors.js';
import { call, orderBody } from '../support/orderFlows.js';
import { startInstanceBeside, startTestService, type TestService } from '../support/testService.js';

/**
 * Reference data is kept in each instance's memory (docs/decisions/0045-caches-and-invalidation.md); a write
 * on one instance reaches the others' caches over the bus, long before an entry would run out.
 */
describe.runIf(process.env.NATS_URL && process.env.DATABASE_URL)(
  'reference data cached across instances (one database, one bus)',
  () => {
    let a: Awaited<ReturnType<typeof startTestService>>;
    let b: TestService;
    beforeAll(async () => {
      a = await startTestService();
      b = await startInstanceBeside(a, { roles: ['api'] });
    });
    afterAll(async () => {
      await b?.stop();
      await a?.stop();
    });

    it('a rate set on instance A prices the next order on instance B, which had the old one cached', async () => {
      const admin = await signInAdmin(a, { superAdmin: true });
      // The rate an order was priced at, as the back office sees it.
      const orderedOnB = async () => {
        const created = await call(b).post('/orders', (await signInClient(b)).token, orderBody());
        expect(created.status).toBe(201);
        return (await call(b).get(`/orders/${created.body.order.id}`, admin.token)).body.order.official_rate_cents;
      };
      const rate = (await orderedOnB()) / 100 + 1.25;
      const set = await call(a).post('/admin/exchange-rates', admin.token, { currency: 'VES', rate });
      expect(set.body).toMatchObject({ rate: {} });
      await expect.poll(orderedOnB, { timeout: REFERENCE_CACHE_MS / 5, interval: 20 }).toBe(Math.round(rate * 100));
    });

    it('a payment method switched off on instance A is refused by instance B', async () => {
      const admin = await signInAdmin(a, { superAdmin: true });
      const client = await signInClient(b);
      const before = await call(b).post('/orders', client.token, orderBody({ paymentMethod: 'CASH_USD' }));
      expect(before.status).toBe(201);
      expect((await call(a).patch('/admin/payment-methods/CASH_USD', admin.token, { active: false })).status).toBe(200);
      try {
        await expect
          .poll(
            async () =>
              (await call(b).post('/orders', (await signInClient(b)).token, orderBody({ paymentMethod: 'CASH_USD' })))
                .status,
            { timeout: REFERENCE_CACHE_MS / 5, interval: 20 },
          )
          .toBe(422);
      } finally {
        await call(a).patch('/admin/payment-methods/CASH_USD', admin.token, { active: true });
      }
    });
  },
);
