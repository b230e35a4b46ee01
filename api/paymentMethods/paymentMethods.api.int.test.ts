import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPaymentMethod, isActiveMethod } from '../../stores/paymentMethods/paymentMethodQueries.js';
import { signInAdmin, signInClient, signInDriver } from '../../tests/support/actors.js';
import {
  expectNothingAppended,
  expectResponse,
  refused,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../tests/support/apiSpecification.js';

/** The catalogue is reference data kept as state: a toggle appends no event, and neither does a refusal. */
describe('payment-method catalogue', () => {
  let t: ApiUnderTest;
  let admin: string;
  let client: string;

  beforeAll(async () => {
    t = await startApiUnderTest();
    admin = (await signInAdmin(t)).token;
    client = (await signInClient(t)).token;
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('lists the seeded methods with their kind and active flag to any signed-in caller', async () => {
    const expected = {
      methods: [
        { code: 'CASH_USD', name: expect.any(String), kind: 'cash', active: true },
        { code: 'EXCHANGE_PAY', name: expect.any(String), kind: 'online', active: true },
        { code: 'PAYPROV_DI', name: expect.any(String), kind: 'online', active: true },
        { code: 'PAYMENT_FORM', name: expect.any(String), kind: 'form', active: true },
        { code: 'PAGO_MOVIL', name: expect.any(String), kind: 'online', active: false },
      ],
    };
    const driver = (await signInDriver(t, { approved: false })).token;
    for (const token of [client, driver, admin]) {
      const r = await t.request('GET', '/api/v1/payment-methods', { token });
      expect(r.status).toBe(200);
      expect(r.body).toEqual(expected);
    }
    expect((await refused(t, (api) => api.get('/payment-methods'), 401)).status).toBe(401);
  });

  it('lets an admin switch a method off and on, and the queries follow', async () => {
    const db = t.service.ctx.db;
    const off = await t
      .given()
      .when((api) => api.patch('/admin/payment-methods/EXCHANGE_PAY', admin, { active: false }))
      .then(expectResponse(200), expectNothingAppended);
    expect(off.status).toBe(200);
    expect(off.body).toEqual({
      method: { code: 'EXCHANGE_PAY', name: expect.any(String), kind: 'online', active: false },
    });
    expect(await isActiveMethod(db, 'EXCHANGE_PAY')).toBe(false);
    expect(await findPaymentMethod(db, 'EXCHANGE_PAY')).toMatchObject({
      code: 'EXCHANGE_PAY',
      kind: 'online',
      active: false,
    });
    const listed = await t.request('GET', '/api/v1/payment-methods', { token: client });
    expect(listed.body.methods.find((m: { code: string }) => m.code === 'EXCHANGE_PAY').active).toBe(false);

    const on = await t
      .given()
      .when((api) => api.patch('/admin/payment-methods/EXCHANGE_PAY', admin, { active: true }))
      .then(expectResponse(200), expectNothingAppended);
    expect(on.body.method.active).toBe(true);
    expect(await isActiveMethod(db, 'EXCHANGE_PAY')).toBe(true);
  });

  it('answers the queries for unknown and inactive codes', async () => {
    const db = t.service.ctx.db;
    expect(await findPaymentMethod(db, 'BITCOIN')).toBeNull();
    expect(await isActiveMethod(db, 'BITCOIN')).toBe(false);
    expect(await isActiveMethod(db, 'PAGO_MOVIL')).toBe(false);
    expect(await isActiveMethod(db, 'CASH_USD')).toBe(true);
  });

  it('answers an unknown code with 404 and a bad body with 422 naming active', async () => {
    const unknown = await refused(
      t,
      (api) => api.patch('/admin/payment-methods/BITCOIN', admin, { active: true }),
      404,
      'NotFound',
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('NotFound');
    for (const body of [{}, { active: 'yes' }, { active: null }]) {
      const r = await refused(
        t,
        (api) => api.patch('/admin/payment-methods/CASH_USD', admin, body),
        422,
        'ValidationError',
      );
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.details.fieldErrors)).toEqual(['active']);
    }
  });

  it('keeps the toggle to admins', async () => {
    expect(
      (await refused(t, (api) => api.patch('/admin/payment-methods/CASH_USD', undefined, { active: false }), 401))
        .status,
    ).toBe(401);
    const r = await refused(t, (api) => api.patch('/admin/payment-methods/CASH_USD', client, { active: false }), 403);
    expect(r.status).toBe(403);
    expect(await isActiveMethod(t.service.ctx.db, 'CASH_USD')).toBe(true);
  });
});
