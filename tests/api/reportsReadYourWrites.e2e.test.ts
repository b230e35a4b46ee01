import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAdmin, signInClient, type SignedInAdmin } from '../support/actors.js';
import { call, orderBody } from '../support/orderFlows.js';
import { startTestService, type TestService } from '../support/testService.js';

/**
 * Commands answer without waiting for the reports' read model (it is settled on read): the back office
 * still sees every write acknowledged before it asked, because its reads wait for that model to reach the
 * head of the log. Each read here follows its write at once, with no settling in between.
 */
describe('reports and city-scoped customers hold every acknowledged write', () => {
  let t: TestService;
  let api: ReturnType<typeof call>;
  let root: SignedInAdmin;
  let caracasAdmin: SignedInAdmin;
  beforeAll(async () => {
    t = await startTestService({ env: { OFFICIAL_RATE_VES: '36.5' } });
    api = call(t);
    root = await signInAdmin(t);
    caracasAdmin = await signInAdmin(t, { superAdmin: false, cityIds: [1] });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it(
    'an order created a moment ago is in the orders report, its export ' +
      'and, for the city’s admin, its client among the customers',
    async () => {
      for (let n = 1; n <= 5; n++) {
        const client = await signInClient(t);
        const created = await api.post('/orders', client.token, orderBody());
        expect(created.status).toBe(201);

        const report = await api.get('/admin/reports/orders?per_page=100', root.token);
        expect(report.status).toBe(200);
        expect(report.body.meta.total).toBe(n);
        expect(report.body.items.map((o: { id: number }) => o.id)).toContain(created.body.order.id);

        const exported = await t.request('GET', '/api/v1/admin/reports/orders/export', { token: root.token });
        expect(exported.status).toBe(200);
        // The BOM-prefixed header line, then one line per order.
        expect(String(exported.body).trim().split('\n')).toHaveLength(n + 1);

        const customers = await api.get(
          `/admin/customers?q=${encodeURIComponent(client.user.phone)}`,
          caracasAdmin.token,
        );
        expect(customers.status).toBe(200);
        expect(customers.body.items.map((c: { id: number }) => c.id)).toEqual([client.user.id]);
      }
    },
  );
});
