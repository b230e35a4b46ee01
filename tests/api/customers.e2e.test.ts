import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import {
  signInAdmin,
  signInClient,
  type SignedInAdmin,
  type SignedInDriver,
  type SignedInUser,
} from '../support/actors.js';
import { call, confirmedOrder, deliverOrder, onlineDriver, orderBody } from '../support/orderFlows.js';
import { startTestService, type TestService } from '../support/testService.js';

describe('back-office customers', () => {
  let t: TestService;
  let api: ReturnType<typeof call>;
  let root: SignedInAdmin;
  let caracasAdmin: SignedInAdmin;
  let maracaiboAdmin: SignedInAdmin;
  let driver: SignedInDriver;
  beforeAll(async () => {
    t = await startTestService({ clock: new ManualClock(), env: { OFFICIAL_RATE_VES: '36.5' } });
    api = call(t);
    root = await signInAdmin(t);
    caracasAdmin = await signInAdmin(t, { superAdmin: false, cityIds: [1] });
    maracaiboAdmin = await signInAdmin(t, { superAdmin: false, cityIds: [2] });
    driver = await onlineDriver(t, { name: 'Conductor Caracas' });
  });
  afterAll(async () => {
    await t?.stop();
  });

  const deliver = async (client: SignedInUser, basePrice: number, liters: number): Promise<number> => {
    const f = await confirmedOrder(t, { client, driver, body: { basePrice, litersRequested: liters } });
    await deliverOrder(t, f, liters);
    return f.orderId;
  };
  const byPhone = async (admin: SignedInAdmin, phone: string, extra = '') =>
    (await api.get(`/admin/customers?q=${encodeURIComponent(phone)}${extra}`, admin.token)).body;

  it('finds a customer by the words of the name, accents aside, and by the phone as dialled locally', async () => {
    const client = await signInClient(t, undefined, 'Carmen Eduarda Chacón Bolívar');
    const ids = async (q: string) =>
      (
        (await api.get(`/admin/customers?q=${encodeURIComponent(q)}&limit=100`, root.token)).body.items as {
          id: number;
        }[]
      ).map((c) => c.id);
    for (const q of ['carmen chacon', 'CHACÓN', 'bolivar carmen', `0${client.user.phone.replace(/^\+58/, '')}`])
      expect(await ids(q), q).toEqual([client.user.id]);
    expect(await ids('carmen nadie')).toEqual([]);
  });

  it('needs an admin token', async () => {
    const client = await signInClient(t);
    for (const [method, path] of [
      ['get', '/admin/customers'],
      ['get', `/admin/customers/${client.user.id}`],
      ['get', `/admin/customers/${client.user.id}/bank-account`],
      ['put', `/admin/customers/${client.user.id}/bank-account`],
      ['del', `/admin/customers/${client.user.id}/bank-account`],
    ] as const) {
      expect((await api[method](path)).status, `${method} ${path}`).toBe(401);
      expect((await api[method](path, client.token)).status, `${method} ${path}`).toBe(403);
    }
  });

  it('lists customers with delivered-order totals and shows the detail with orders and credit', async () => {
    const client = await signInClient(t, undefined, 'María Totales');
    const first = await deliver(client, 25, 2000);
    const second = await deliver(client, 10, 1000);
    const open = (await api.post('/orders', client.token, orderBody({ basePrice: 7, litersRequested: 500 }))).body
      .order;
    await api.post(`/admin/customers/${client.user.id}/credit/adjust`, root.token, {
      type: 'credit',
      scope: 'SURPLUS',
      amount: 3,
      reason: 'Compensación de prueba',
    });

    const list = await byPhone(root, client.user.phone);
    expect(list).toEqual({
      items: [
        {
          id: client.user.id,
          name: 'María Totales',
          phone: client.user.phone,
          email: null,
          is_active: true,
          total_orders: 2,
          total_liters_ordered: 3000,
          total_solidary_usd: 0,
          created_at: expect.any(String),
        },
      ],
      meta: { total: 1, per_page: 25, current_page: 1, last_page: 1 },
    });

    const detail = await api.get(`/admin/customers/${client.user.id}?limit=2`, caracasAdmin.token);
    expect(detail.status).toBe(200);
    expect(detail.body.customer).toEqual({ ...list.items[0], updated_at: expect.any(String) });
    expect(detail.body.totals).toEqual({ total_orders: 2, total_liters_ordered: 3000, total_spent_usd: 35 });
    expect(detail.body.credit).toEqual({
      anyUSD: 0,
      ordersUSD: 0,
      surplusUSD: 3,
      usableOnOrdersUSD: 0,
      usableOnSurplusUSD: 3,
      earnedUSD: 3,
      redeemedUSD: 0,
    });
    expect(detail.body.meta).toEqual({ total: 3, per_page: 2, current_page: 1, last_page: 2 });
    expect(detail.body.orders.map((o: { id: number }) => o.id)).toEqual([open.id, second]);
    expect(detail.body.orders[0]).toMatchObject({
      status: 'BROADCASTING',
      driver: null,
      completed_at: null,
      liters: 500,
      price_usd: 7,
    });
    expect(detail.body.orders[1]).toEqual({
      id: second,
      status: 'DELIVERED',
      location_from: { lat: expect.any(Number), lng: expect.any(Number), text: 'Av. Urdaneta, Edificio Sur, Caracas' },
      location_to: { lat: null, lng: null, text: null },
      liters: 1000,
      price_usd: 10,
      driver: { id: driver.driverId, name: 'Conductor Caracas', phone: driver.user.phone },
      created_at: expect.any(String),
      completed_at: expect.any(String),
    });
    const page2 = (await api.get(`/admin/customers/${client.user.id}?limit=2&page=2`, root.token)).body;
    expect(page2.orders.map((o: { id: number }) => o.id)).toEqual([first]);

    expect((await byPhone(root, client.user.phone, '&min_spent=35&max_spent=35')).items).toHaveLength(1);
    expect((await byPhone(root, client.user.phone, '&min_spent=35.01')).items).toHaveLength(0);
    expect((await byPhone(root, client.user.phone, '&max_spent=34.99')).items).toHaveLength(0);
    expect((await byPhone(root, client.user.phone, '&is_active=true')).items).toHaveLength(1);
    expect((await byPhone(root, client.user.phone, '&is_active=false')).items).toHaveLength(0);
    expect((await byPhone(root, 'maría tot')).items.map((c: { id: number }) => c.id)).toEqual([client.user.id]);
  });

  it('lists newest first with page meta', async () => {
    const a = await signInClient(t, undefined, 'Paginado Uno');
    const b = await signInClient(t, undefined, 'Paginado Dos');
    const page1 = (await api.get('/admin/customers?q=Paginado&limit=1', root.token)).body;
    expect(page1.items.map((c: { id: number }) => c.id)).toEqual([b.user.id]);
    expect(page1.meta).toEqual({ total: 2, per_page: 1, current_page: 1, last_page: 2 });
    const page2 = (await api.get('/admin/customers?q=Paginado&limit=1&page=2', root.token)).body;
    expect(page2.items.map((c: { id: number }) => c.id)).toEqual([a.user.id]);
    // A customer without orders is visible to all-cities admins only.
    expect((await api.get('/admin/customers?q=Paginado', caracasAdmin.token)).body.items).toEqual([]);
    // Drivers are not customers.
    expect((await byPhone(root, driver.user.phone)).items).toEqual([]);
  });

  it('scopes customers to the admin’s cities (the cities their orders were served in)', async () => {
    const client = await signInClient(t);
    await deliver(client, 12, 1000);
    expect((await byPhone(caracasAdmin, client.user.phone)).items).toHaveLength(1);
    expect((await byPhone(maracaiboAdmin, client.user.phone)).items).toEqual([]);
    for (const path of [`/admin/customers/${client.user.id}`, `/admin/customers/${client.user.id}/bank-account`]) {
      const hidden = await api.get(path, maracaiboAdmin.token);
      expect(hidden.status).toBe(404);
      expect(hidden.body.error).toBe('CustomerNotFound');
    }
    expect(
      (
        await api.put(`/admin/customers/${client.user.id}/bank-account`, maracaiboAdmin.token, {
          idNumber: 'V12345678',
          phone: '04141234567',
          bankCode: '0102',
        })
      ).status,
    ).toBe(404);
  });

  it('answers 404 CustomerNotFound for unknown ids and drivers, 422 for bad list and detail queries', async () => {
    for (const id of [999_999, 'abc', driver.user.id]) {
      for (const r of [
        await api.get(`/admin/customers/${id}`, root.token),
        await api.get(`/admin/customers/${id}/bank-account`, root.token),
      ]) {
        expect(r.status).toBe(404);
        expect(r.body.error).toBe('CustomerNotFound');
      }
    }
    const bad = await api.get(
      `/admin/customers?is_active=maybe&min_spent=-1&max_spent=x&q=${'q'.repeat(81)}&limit=0&page=0`,
      root.token,
    );
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual([
      'is_active',
      'limit',
      'max_spent',
      'min_spent',
      'page',
      'q',
    ]);
    const client = await signInClient(t);
    const badDetail = await api.get(`/admin/customers/${client.user.id}?limit=101&page=-1`, root.token);
    expect(badDetail.status).toBe(422);
    expect(Object.keys(badDetail.body.details.fieldErrors).sort()).toEqual(['limit', 'page']);
  });

  it('keeps one saved bank account per customer: create, replace, remove', async () => {
    const client = await signInClient(t);
    const path = `/admin/customers/${client.user.id}/bank-account`;
    expect((await api.get(path, root.token)).body).toEqual({ account: null });
    const created = await api.put(path, root.token, {
      idNumber: 'v-12.345.678',
      phone: '0414-123.45.67',
      bankCode: '0102',
    });
    expect(created.status).toBe(200);
    expect(created.body.account).toEqual({
      id: expect.any(Number),
      id_number: 'V12345678',
      phone: '+584141234567',
      bank_code: '0102',
      updated_at: expect.any(String),
    });
    const replaced = await api.put(path, root.token, {
      idNumber: '1234567890',
      phone: '+58 424 765 4321',
      bankCode: '0134',
    });
    expect(replaced.body.account).toEqual({
      id: created.body.account.id,
      id_number: '1234567890',
      phone: '+584247654321',
      bank_code: '0134',
      updated_at: expect.any(String),
    });
    expect((await api.get(path, root.token)).body).toEqual(replaced.body);

    const bad = await api.put(path, root.token, { idNumber: 'X12345', phone: '02121234567', bankCode: '102' });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual(['bankCode', 'idNumber', 'phone']);
    // The document's phone pattern takes what the service takes, and refuses what it refuses.
    const doc = (await t.request('GET', '/api/v1/openapi.json')).body;
    const phone = new RegExp(
      doc.paths['/admin/customers/{customerId}/bank-account'].put.requestBody.content['application/json'].schema
        .properties.phone.pattern,
    );
    for (const taken of ['0414-123.45.67', '+58 424 765 4321', '(0416) 123 4567', '00584221234567', '4261234567'])
      expect(phone.test(taken), taken).toBe(true);
    for (const refused of ['02121234567', '0414123456', 'ði]^', '+5804141234567', '0414 123 4567 x'])
      expect(phone.test(refused), refused).toBe(false);
    for (const [body, field] of [
      [{ idNumber: 'V123456', phone: '04141234567', bankCode: '01020' }, 'bankCode'],
      [{ idNumber: 'V12345678901', phone: '04141234567', bankCode: '0102' }, 'idNumber'],
      [{ idNumber: 'V123456', phone: '0414123456', bankCode: '0102' }, 'phone'],
      [{ phone: '04141234567', bankCode: '0102' }, 'idNumber'],
    ] as const) {
      const r = await api.put(path, root.token, body);
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.details.fieldErrors)).toEqual([field]);
    }
    expect((await api.get(path, root.token)).body).toEqual(replaced.body);

    expect((await api.del(path, root.token)).status).toBe(204);
    expect((await api.get(path, root.token)).body).toEqual({ account: null });
    expect((await api.del(path, root.token)).status).toBe(204);

    // Two admins saving at once: one account remains, one of the two bodies.
    const saved = await Promise.all(
      ['0102', '0105'].map((bankCode) =>
        api.put(path, root.token, { idNumber: 'E87654321', phone: '04161112233', bankCode }),
      ),
    );
    expect(saved.map((r) => r.status)).toEqual([200, 200]);
    expect(saved[0].body.account.id).toBe(saved[1].body.account.id);
    expect(['0102', '0105']).toContain((await api.get(path, root.token)).body.account.bank_code);
  });

  it('scopes credit to the admin’s cities like the customer detail', async () => {
    const f = await confirmedOrder(t);
    const body = { type: 'credit', amount: 1, reason: 'Una razón suficientemente larga' };
    const elsewhere = await signInAdmin(t, { superAdmin: false, cityIds: [2] });
    const adjust = await api.post(`/admin/customers/${f.client.user.id}/credit/adjust`, elsewhere.token, body);
    expect(adjust.status).toBe(404);
    expect(adjust.body.error).toBe('CustomerNotFound');
    expect(
      (await api.get(`/admin/customers/${f.client.user.id}/credit/transactions`, elsewhere.token)).body.error,
    ).toBe('CustomerNotFound');
    const caracas = await signInAdmin(t, { superAdmin: false, cityIds: [1] });
    expect((await api.post(`/admin/customers/${f.client.user.id}/credit/adjust`, caracas.token, body)).status).toBe(
      200,
    );
    expect(
      (await api.get(`/admin/customers/${f.client.user.id}/credit/transactions`, caracas.token)).body.items,
    ).toHaveLength(1);
  });
});
