import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import {
  signInAdmin,
  signInClient,
  signInDriver,
  type SignedInAdmin,
  type SignedInDriver,
} from '../../tests/support/actors.js';
import { startApiUnderTest } from '../../tests/support/apiSpecification.js';
import { call, CARACAS, confirmedOrder, near, orderBody } from '../../tests/support/orderFlows.js';
import type { TestService } from '../../tests/support/testService.js';

const NOW = '2026-01-01T12:00:00.000Z';

/** 20.01 USD of driver gross: base price round(2001 / 0.9) = 2223 cents, online + 1 % = 2245 cents. */
const listingBody = (over: Record<string, unknown> = {}) => ({
  availableLiters: 1500,
  totalAmount: 20.01,
  description: 'Agua potable sobrante',
  ...near(0.02),
  address: 'Av. Libertador, Caracas',
  ...over,
});

const reserveBody = (over: Record<string, unknown> = {}) => ({
  ...CARACAS,
  address: 'Av. Urdaneta, Edificio Sur, Caracas',
  ...over,
});

describe('surplus listings', () => {
  let t: TestService;
  let api: ReturnType<typeof call>;
  let admin: SignedInAdmin;
  beforeAll(async () => {
    t = await startApiUnderTest({ clock: new ManualClock(), env: { OFFICIAL_RATE_VES: '36.5' } });
    api = call(t);
    admin = await signInAdmin(t);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const driver = () => signInDriver(t, { liters: 3000 });
  const publish = async (d: SignedInDriver, over: Record<string, unknown> = {}) => {
    const r = await api.post('/surplus', d.token, listingBody(over));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.listing;
  };
  const nearby = async (token: string, query = '') =>
    await api.get(`/surplus/nearby?lat=${CARACAS.latitude}&lng=${CARACAS.longitude}${query}`, token);
  const nearbyOne = async (token: string, id: number, query = '') =>
    (await nearby(token, query)).body.listings.find((l: { id: number }) => l.id === id);
  const mine = async (d: SignedInDriver) =>
    (await api.get('/surplus/me', d.token)).body.listings.map((l: { id: number }) => l.id);

  it('a driver publishes a listing; it shows in /surplus/me and, priced per method, in nearby', async () => {
    const d = await driver();
    const listing = await publish(d);
    expect(listing).toEqual({
      id: expect.any(Number),
      driver_id: d.driverId,
      city_id: 1,
      available_liters: 1500,
      price_per_liter_cents: 1,
      total_price_cents: 2001,
      price_per_liter_usd: 0.01,
      total_price_usd: 20.01,
      description: 'Agua potable sobrante',
      latitude: near(0.02).latitude,
      longitude: near(0.02).longitude,
      address: 'Av. Libertador, Caracas',
      status: 'ACTIVA',
      sold_liters: 0,
      remaining_liters: 1500,
      expires_at: '2026-01-01T18:00:00.000Z',
      created_at: NOW,
    });
    expect(await mine(d)).toEqual([listing.id]);

    const client = await signInClient(t);
    const cash = await nearbyOne(client.token, listing.id);
    expect(cash).toMatchObject({
      ...listing,
      payment_method: 'CASH_USD',
      base_price_cents: 2223,
      base_price_usd: 22.23,
      client_pays_cents: 2223,
      client_pays_usd: 22.23,
    });
    expect(cash.distance_km).toBeCloseTo(2.22, 1);
    // A blank method is the parameter left out, as the document admits it.
    expect(await nearbyOne(client.token, listing.id, '&paymentMethod=')).toMatchObject({ payment_method: 'CASH_USD' });
    expect(await nearbyOne(client.token, listing.id, '&paymentMethod=EXCHANGE_PAY')).toMatchObject({
      base_price_cents: 2223,
      client_pays_cents: 2245,
      client_pays_usd: 22.45,
    });
    // GET /surplus is an exact alias, for any role.
    const alias = await api.get(`/surplus?lat=${CARACAS.latitude}&lng=${CARACAS.longitude}`, admin.token);
    expect(alias.status).toBe(200);
    expect(alias.body.listings.find((l: { id: number }) => l.id === listing.id)).toEqual(cash);
    // Outside the radius: not listed.
    expect(await nearbyOne(client.token, listing.id, '&radiusKm=1')).toBeUndefined();
  });

  it('durationMinutes sets expires_at; nearby is nearest first', async () => {
    const far = await publish(await driver(), { ...near(0.05), durationMinutes: 15 });
    const close = await publish(await driver(), { ...near(0.001), durationMinutes: 720 });
    expect(far.expires_at).toBe('2026-01-01T12:15:00.000Z');
    expect(close.expires_at).toBe('2026-01-02T00:00:00.000Z');
    const ids = (await nearby(admin.token)).body.listings.map((l: { id: number }) => l.id);
    expect(ids.indexOf(close.id)).toBeLessThan(ids.indexOf(far.id));
  });

  it('reserving with cash creates a CONFIRMED order for the listing’s driver; the listing is RESERVADA', async () => {
    const d = await driver();
    const listing = await publish(d);
    const client = await signInClient(t);
    const r = await api.post(
      `/surplus/${listing.id}/reserve`,
      client.token,
      reserveBody({ addressReference: 'Portón verde' }),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.order).toMatchObject({
      status: 'CONFIRMED',
      surplus_listing_id: listing.id,
      liters_requested: 1500,
      payment_method: 'CASH_USD',
      address_reference: 'Portón verde',
      base_price_usd: 22.23,
      client_pays_usd: 22.23,
      client_charged_usd: 22.23,
      offers: [],
    });
    expect(r.body.order.delivery_pin).toMatch(/^\d{4}$/);
    // The driver sees it as their order, with their gross exactly the listing's total.
    const forDriver = await api.get(`/orders/${r.body.order.id}`, d.token);
    expect(forDriver.status).toBe(200);
    expect(forDriver.body.order).toMatchObject({
      status: 'CONFIRMED',
      driver_gross_usd: 20.01,
      surplus_listing_id: listing.id,
    });

    expect(await nearbyOne(client.token, listing.id)).toBeUndefined();
    expect(await mine(d)).toEqual([]);
    // Already reserved: 409; and the driver, now holding an order, may not publish.
    const again = await api.post(`/surplus/${listing.id}/reserve`, (await signInClient(t)).token, reserveBody());
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('Conflict');
    const busy = await api.post('/surplus', d.token, listingBody());
    expect(busy.status).toBe(409);
    expect(busy.body.error).toBe('Conflict');
    // Nor cancel a reserved listing.
    expect((await api.del(`/surplus/${listing.id}`, d.token)).status).toBe(409);
  });

  it('reserving with an online method waits for payment, priced with the solidary share', async () => {
    const listing = await publish(await driver());
    const client = await signInClient(t);
    const r = await api.post(
      `/surplus/${listing.id}/reserve`,
      client.token,
      reserveBody({ paymentMethod: 'EXCHANGE_PAY' }),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.order).toMatchObject({
      status: 'WAITING_FOR_PAYMENT',
      surplus_listing_id: listing.id,
      payment_method: 'EXCHANGE_PAY',
      base_price_usd: 22.23,
      client_solidary_usd: 0.22,
      client_pays_usd: 22.45,
      client_charged_usd: 22.45,
    });
    expect(r.body.order).not.toHaveProperty('delivery_pin');
  });

  // The rule is the credit decider's and the reaction's; this checks that a reservation's order is created
  // with the surplus bucket (commands/order/create.ts) and priced with what it redeems.
  it('a reservation spends SURPLUS credit first, then ANY, never ORDERS', async () => {
    const client = await signInClient(t);
    for (const [scope, amount] of [
      ['SURPLUS', 2.5],
      ['ORDERS', 5],
      ['ANY', 1],
    ] as const) {
      const g = await api.post(`/admin/customers/${client.user.id}/credit/adjust`, admin.token, {
        type: 'credit',
        scope,
        amount,
        reason: 'Compensación por un pedido tardío',
      });
      expect(g.status).toBe(200);
    }
    const listing = await publish(await driver());
    const r = await api.post(`/surplus/${listing.id}/reserve`, client.token, reserveBody());
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.order).toMatchObject({
      client_pays_usd: 22.23,
      promo_credit_usd: 3.5,
      client_charged_usd: 18.73,
      is_fully_promoted: false,
    });
    expect((await api.get('/credit/me', client.token)).body).toMatchObject({ surplusUSD: 0, anyUSD: 0, ordersUSD: 5 });
  });

  it('two clients reserving at once: one order, one 409', async () => {
    const listing = await publish(await driver());
    const [a, b] = [await signInClient(t), await signInClient(t)];
    const results = await Promise.all(
      [a, b].map((c) => api.post(`/surplus/${listing.id}/reserve`, c.token, reserveBody())),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const loser = results.find((r) => r.status === 409)!;
    expect(loser.body.error).toBe('Conflict');
    const winner = results.find((r) => r.status === 200)!;
    expect(winner.body.order.surplus_listing_id).toBe(listing.id);
    // The loser holds no order.
    const loserClient = results[0].status === 409 ? a : b;
    expect((await api.post('/orders', loserClient.token, orderBody())).status).toBe(201);
  });

  it('a failed reservation leaves the listing ACTIVA: client already holding an order, driver busy', async () => {
    const d = await driver();
    const [first, second] = [await publish(d), await publish(d, { availableLiters: 800 })];
    const busyClient = await signInClient(t);
    expect((await api.post('/orders', busyClient.token, orderBody())).status).toBe(201);
    const refused = await api.post(`/surplus/${first.id}/reserve`, busyClient.token, reserveBody());
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('ActiveOrderExists');
    expect(await nearbyOne(busyClient.token, first.id)).toMatchObject({ status: 'ACTIVA', remaining_liters: 1500 });

    expect((await api.post(`/surplus/${first.id}/reserve`, (await signInClient(t)).token, reserveBody())).status).toBe(
      200,
    );
    // The same driver's other listing: the driver now holds an order.
    const driverBusy = await api.post(`/surplus/${second.id}/reserve`, (await signInClient(t)).token, reserveBody());
    expect(driverBusy.status).toBe(409);
    expect(driverBusy.body.error).toBe('Conflict');
    expect(await nearbyOne(admin.token, second.id)).toMatchObject({ status: 'ACTIVA' });
  });

  it('a cancelled surplus order leaves the listing RESERVADA; the driver, free again, may publish anew', async () => {
    const d = await driver();
    const listing = await publish(d);
    const client = await signInClient(t);
    const order = (await api.post(`/surplus/${listing.id}/reserve`, client.token, reserveBody())).body.order;
    expect((await api.post(`/orders/${order.id}/cancel`, client.token, {})).status).toBe(200);
    expect(await nearbyOne(client.token, listing.id)).toBeUndefined();
    expect(
      (await api.post(`/surplus/${listing.id}/reserve`, (await signInClient(t)).token, reserveBody())).status,
    ).toBe(409);
    const fresh = await publish(d);
    expect(await mine(d)).toEqual([fresh.id]);
  });

  it('a driver holding an active order may not publish', async () => {
    const flow = await confirmedOrder(t);
    const r = await api.post('/surplus', flow.driver.token, listingBody());
    expect(r.status).toBe(409);
    expect(r.body.error).toBe('Conflict');
  });

  it('the owner cancels by DELETE or POST /cancel; others get 409; unknown ids 404', async () => {
    const d = await driver();
    const [a, b] = [await publish(d), await publish(d)];
    const other = await driver();
    const notOwner = await api.del(`/surplus/${a.id}`, other.token);
    expect(notOwner.status).toBe(409);
    expect(notOwner.body.error).toBe('Conflict');
    expect((await api.post(`/surplus/${a.id}/cancel`, other.token)).status).toBe(409);

    const del = await api.del(`/surplus/${a.id}`, d.token);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ ok: true });
    const post = await api.post(`/surplus/${b.id}/cancel`, d.token);
    expect(post.status).toBe(200);
    expect(post.body).toEqual({ ok: true });
    expect(await mine(d)).toEqual([]);
    expect(await nearbyOne(admin.token, a.id)).toBeUndefined();

    expect((await api.del(`/surplus/${a.id}`, d.token)).status).toBe(409);
    const reserveCancelled = await api.post(`/surplus/${b.id}/reserve`, (await signInClient(t)).token, reserveBody());
    expect(reserveCancelled.status).toBe(409);
    expect(reserveCancelled.body.error).toBe('Conflict');

    for (const id of ['999999', 'abc', '0']) {
      const r = await api.del(`/surplus/${id}`, d.token);
      expect(r.status).toBe(404);
      expect(r.body.error).toBe('NotFound');
      expect((await api.post(`/surplus/${id}/reserve`, (await signInClient(t)).token, reserveBody())).status).toBe(404);
    }
  });

  it(
    'checks roles: drivers publish, list their own and ' + 'cancel; clients reserve; any signed-in caller browses',
    async () => {
      const client = await signInClient(t);
      const d = await driver();
      const listing = await publish(d);
      expect((await api.post('/surplus', client.token, listingBody())).status).toBe(403);
      expect((await api.post('/surplus', admin.token, listingBody())).status).toBe(403);
      expect((await api.get('/surplus/me', client.token)).status).toBe(403);
      expect((await api.del(`/surplus/${listing.id}`, client.token)).status).toBe(403);
      expect((await api.post(`/surplus/${listing.id}/cancel`, admin.token)).status).toBe(403);
      expect((await api.post(`/surplus/${listing.id}/reserve`, d.token, reserveBody())).status).toBe(403);
      expect((await api.post(`/surplus/${listing.id}/reserve`, admin.token, reserveBody())).status).toBe(403);
      expect((await nearby(d.token)).status).toBe(200);
      for (const [method, path] of [
        ['post', '/surplus'],
        ['get', '/surplus/me'],
        ['get', `/surplus/nearby?lat=1&lng=1`],
        ['get', `/surplus?lat=1&lng=1`],
        ['del', `/surplus/${listing.id}`],
        ['post', `/surplus/${listing.id}/cancel`],
        ['post', `/surplus/${listing.id}/reserve`],
      ] as const) {
        expect(
          (await api[method](path, undefined, method === 'get' ? undefined : {})).status,
          `${method} ${path}`,
        ).toBe(401);
      }
      expect(await mine(d)).toEqual([listing.id]);
    },
  );

  it('POST /surplus: 422 naming each bad field', async () => {
    const d = await driver();
    const missing = await api.post('/surplus', d.token, {});
    expect(missing.status).toBe(422);
    expect(missing.body.error).toBe('ValidationError');
    expect(Object.keys(missing.body.details.fieldErrors).sort()).toEqual([
      'address',
      'availableLiters',
      'latitude',
      'longitude',
      'totalAmount',
    ]);
    const cases: [string, unknown][] = [
      ['availableLiters', 499],
      ['availableLiters', 50_001],
      ['availableLiters', 1000.5],
      ['availableLiters', '1000'],
      ['totalAmount', 0],
      ['totalAmount', -5],
      ['totalAmount', 100_000.01],
      ['totalAmount', 1.001],
      ['description', 'x'.repeat(281)],
      ['latitude', 91],
      ['longitude', -181],
      ['address', 'ab'],
      ['address', 'x'.repeat(281)],
      ['durationMinutes', 14],
      ['durationMinutes', 721],
      ['durationMinutes', 30.5],
    ];
    for (const [field, value] of cases) {
      const r = await api.post('/surplus', d.token, listingBody({ [field]: value }));
      expect(r.status, `${field}=${String(value)}`).toBe(422);
      expect(Object.keys(r.body.details.fieldErrors), `${field}=${String(value)}`).toEqual([field]);
    }
    // The limits themselves are accepted.
    const edge = await api.post(
      '/surplus',
      d.token,
      listingBody({
        availableLiters: 50_000,
        totalAmount: 100_000,
        durationMinutes: 720,
        description: 'x'.repeat(280),
      }),
    );
    expect(edge.status).toBe(201);
    expect(edge.body.listing).toMatchObject({
      available_liters: 50_000,
      total_price_usd: 100_000,
      price_per_liter_cents: 200,
    });
    expect(
      (
        await api.post(
          '/surplus',
          d.token,
          listingBody({ availableLiters: 500, durationMinutes: 15, description: null }),
        )
      ).body.listing,
    ).toMatchObject({ description: null });
  });

  it('nearby: 422 naming each bad query parameter; PAYMENT_FORM needs an active form', async () => {
    const client = await signInClient(t);
    const missing = await api.get('/surplus/nearby', client.token);
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.details.fieldErrors).sort()).toEqual(['lat', 'lng']);
    for (const [field, query] of [
      ['lat', 'lat=91&lng=0'],
      ['lng', 'lat=0&lng=abc'],
      ['radiusKm', 'lat=0&lng=0&radiusKm=0'],
      ['radiusKm', 'lat=0&lng=0&radiusKm=100.5'],
      ['paymentMethod', 'lat=0&lng=0&paymentMethod=BITCOIN'],
      ['paymentMethod', 'lat=0&lng=0&paymentMethod=PAGO_MOVIL'],
      ['paymentFormId', 'lat=0&lng=0&paymentMethod=PAYMENT_FORM'],
      ['paymentFormId', 'lat=0&lng=0&paymentMethod=PAYMENT_FORM&paymentFormId=999999'],
      ['paymentFormId', 'lat=0&lng=0&paymentMethod=PAYMENT_FORM&paymentFormId=-1'],
    ]) {
      const r = await api.get(`/surplus/nearby?${query}`, client.token);
      expect(r.status, query).toBe(422);
      expect(Object.keys(r.body.details.fieldErrors), query).toEqual([field]);
    }
    expect((await api.get('/surplus/nearby?lat=0&lng=0&radiusKm=100', client.token)).status).toBe(200);
  });

  it('reserve: 422 naming each bad field, unavailable method or bad paymentFormId; nothing is reserved', async () => {
    const listing = await publish(await driver());
    const client = await signInClient(t);
    const missing = await api.post(`/surplus/${listing.id}/reserve`, client.token, {});
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.details.fieldErrors).sort()).toEqual(['address', 'latitude', 'longitude']);
    for (const [field, value] of [
      ['latitude', -91],
      ['longitude', 'x'],
      ['address', 'ab'],
      ['addressReference', 'x'.repeat(256)],
      ['paymentMethod', 'BITCOIN'],
      ['paymentMethod', 'PAGO_MOVIL'],
      ['paymentFormId', 0],
    ] as const) {
      const r = await api.post(`/surplus/${listing.id}/reserve`, client.token, reserveBody({ [field]: value }));
      expect(r.status, `${field}=${String(value)}`).toBe(422);
      expect(Object.keys(r.body.details.fieldErrors), `${field}=${String(value)}`).toEqual([field]);
      expect(r.body.message).toEqual(expect.any(String));
    }
    const noForm = await api.post(
      `/surplus/${listing.id}/reserve`,
      client.token,
      reserveBody({ paymentMethod: 'PAYMENT_FORM' }),
    );
    expect(noForm.status).toBe(422);
    expect(noForm.body.details.fieldErrors).toHaveProperty('paymentFormId');
    const unknownForm = await api.post(
      `/surplus/${listing.id}/reserve`,
      client.token,
      reserveBody({ paymentMethod: 'PAYMENT_FORM', paymentFormId: 999_999 }),
    );
    expect(unknownForm.status).toBe(422);
    expect(unknownForm.body.details.fieldErrors).toHaveProperty('paymentFormId');
    expect(await nearbyOne(client.token, listing.id)).toMatchObject({ status: 'ACTIVA' });
    expect(
      (await api.post(`/surplus/${listing.id}/reserve`, client.token, reserveBody({ addressReference: null }))).status,
    ).toBe(200);
  });
});
