import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAdmin } from '../../tests/support/actors.js';
import { exchangeRateStream } from '../../domain/exchangeRate/events.js';
import {
  expectNewEvents,
  expectResponse,
  refused,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../tests/support/apiSpecification.js';

/** Money settings are super-admin writes; each rate change is an event naming its admin (issue #20 finding 10). */
describe('money settings', () => {
  let t: ApiUnderTest;
  beforeAll(async () => {
    t = await startApiUnderTest({ env: { OFFICIAL_RATE_VES: '36.5' } });
  });
  afterAll(() => t?.stop());

  it('an admin who is not super admin may not set the rate, edit payment forms or toggle payment methods', async () => {
    const admin = await signInAdmin(t, { superAdmin: false, allCities: true });
    const form = (await t.request('GET', '/api/v1/admin/payment-forms', { token: (await signInAdmin(t)).token })).body
      .items[0];
    for (const [method, path, body] of [
      ['post', '/admin/exchange-rates', { currency: 'VES', rate: 1 }],
      ['patch', '/admin/payment-methods/EXCHANGE_PAY', { active: false }],
      ['patch', `/admin/payment-forms/${form.id}`, { name: 'Cuenta del atacante' }],
      [
        'post',
        '/admin/payment-forms',
        { name: 'Otra', internalName: 'otra', currency: 'VES', display: [], fields: [] },
      ],
    ] as const) {
      const r = await refused(t, (api) => api[method](path, admin.token, body), 403, 'Forbidden');
      expect([r.status, r.body.error], path).toEqual([403, 'Forbidden']);
    }
    // Reading them stays open to every admin.
    expect((await t.request('GET', '/api/v1/admin/exchange-rates', { token: admin.token })).status).toBe(200);
  });

  it("a super admin's rate change is recorded in the log with the admin who made it", async () => {
    const root = await signInAdmin(t);
    const r = await t
      .given()
      .when((api) => api.post('/admin/exchange-rates', root.token, { currency: 'VES', rate: 41.75 }))
      .then(
        expectResponse(201),
        expectNewEvents(exchangeRateStream('VES'), [
          {
            type: 'ExchangeRateSet',
            data: { currency: 'VES', rate: '41.75', rateCents: 4175, adminId: root.admin.id },
          },
        ]),
      );
    expect(r.status).toBe(201);
    const events = await t.service.ctx.store.readStream('exchangerate-VES');
    // After the start-up seed (OFFICIAL_RATE_VES), recorded with no admin.
    expect(events[0].data).toMatchObject({ rate: '36.5', adminId: null });
    expect(events.slice(1).map((e) => [e.type, e.data, e.metadata?.actor])).toEqual([
      [
        'ExchangeRateSet',
        {
          currency: 'VES',
          rate: '41.75',
          rateCents: 4175,
          effectiveAt: r.body.rate.effective_at,
          adminId: root.admin.id,
        },
        { id: root.admin.id, role: 'ADMIN' },
      ],
    ]);
  });
});
