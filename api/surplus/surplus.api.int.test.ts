import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditStream } from '../../domain/credit/events.js';
import { orderStream } from '../../domain/order/events.js';
import { customerSlot, driverSlot } from '../../domain/order/slots.js';
import { surplusStream } from '../../domain/surplus/events.js';
import { ManualClock } from '../../infra/clock.js';
import {
  signInAdmin,
  signInClient,
  signInDriver,
  type SignedInAdmin,
  type SignedInDriver,
} from '../../tests/support/actors.js';
import {
  expectError,
  expectNewEvents,
  expectNoNewEvents,
  expectResponse,
  race,
  refused,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../tests/support/apiSpecification.js';
import { call, CARACAS, confirmedOrder, near, orderBody } from '../../tests/support/orderFlows.js';
import type { TestResponse } from '../../tests/support/testService.js';

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
  let t: ApiUnderTest;
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
  const listingOf = (r: TestResponse) => surplusStream(r.body.listing.id);
  const orderOf = (r: TestResponse) => orderStream(r.body.order.id);
  /** A listing published: SurplusListed on its own stream, with the driver's gross as given, in cents. */
  const publish = async (d: SignedInDriver, over: Record<string, unknown> = {}) =>
    (
      await t
        .given()
        .when((api) => api.post('/surplus', d.token, listingBody(over)))
        .then(
          expectResponse(201),
          expectNewEvents(listingOf, [{ type: 'SurplusListed', data: { driverId: d.driverId, listedAt: NOW } }]),
        )
    ).body.listing;
  const nearby = async (token: string, query = '') =>
    await api.get(`/surplus/nearby?lat=${CARACAS.latitude}&lng=${CARACAS.longitude}${query}`, token);
  const nearbyOne = async (token: string, id: number, query = '') =>
    (await nearby(token, query)).body.listings.find((l: { id: number }) => l.id === id);
  const mine = async (d: SignedInDriver) =>
    (await api.get('/surplus/me', d.token)).body.listings.map((l: { id: number }) => l.id);

  it('a driver publishes a listing; it shows in /surplus/me and, priced per method, in nearby', async () => {
    const d = await driver();
    const published = await t
      .given()
      .when((api) => api.post('/surplus', d.token, listingBody()))
      .then(
        expectResponse(201),
        expectNewEvents(listingOf, [
          {
            type: 'SurplusListed',
            data: {
              driverId: d.driverId,
              cityId: 1,
              availableLiters: 1500,
              driverGrossCents: 2001,
              description: 'Agua potable sobrante',
              ...near(0.02),
              address: 'Av. Libertador, Caracas',
              listedAt: NOW,
              expiresAt: '2026-01-01T18:00:00.000Z',
            },
          },
        ]),
      );
    const listing = published.body.listing;
    expect(published.body.listing).toEqual({
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
    const publishFor = async (over: Record<string, unknown>, expiresAt: string) => {
      const d = await driver();
      return (
        await t
          .given()
          .when((api) => api.post('/surplus', d.token, listingBody(over)))
          .then(
            expectResponse(201, { body: { listing: { expires_at: expiresAt } } }),
            expectNewEvents(listingOf, [{ type: 'SurplusListed', data: { listedAt: NOW, expiresAt } }]),
          )
      ).body.listing;
    };
    const far = await publishFor({ ...near(0.05), durationMinutes: 15 }, '2026-01-01T12:15:00.000Z');
    const close = await publishFor({ ...near(0.001), durationMinutes: 720 }, '2026-01-02T00:00:00.000Z');
    const ids = (await nearby(admin.token)).body.listings.map((l: { id: number }) => l.id);
    expect(ids.indexOf(close.id)).toBeLessThan(ids.indexOf(far.id));
  });

  it('reserving with cash creates a CONFIRMED order for the listing’s driver; the listing is RESERVADA', async () => {
    const d = await driver();
    const listing = await publish(d);
    const client = await signInClient(t);
    const r = await t
      .given()
      .when((api) =>
        api.post(`/surplus/${listing.id}/reserve`, client.token, reserveBody({ addressReference: 'Portón verde' })),
      )
      .then(
        expectResponse(200),
        expectNewEvents(surplusStream(listing.id), [
          {
            type: 'SurplusReserved',
            data: { listingId: listing.id, clientId: client.user.id, reservedAt: NOW },
          },
        ]),
        // Bidding skipped: the order starts CONFIRMED with the listing's owner, at the listing's liters and
        // the base price derived from the driver's gross (2001 cents / 0.9, rounded), cash: no solidary share.
        expectNewEvents(orderOf, [
          {
            type: 'OrderCreated',
            data: {
              clientId: client.user.id,
              surplusListingId: listing.id,
              driverId: d.driverId,
              status: 'CONFIRMED',
              litersRequested: 1500,
              paymentMethod: 'CASH_USD',
              addressReference: 'Portón verde',
              creditKind: 'surplus',
              pricing: {
                basePriceCents: 2223,
                driverGrossCents: 2001,
                clientPaysCents: 2223,
                clientChargedCents: 2223,
              },
              paymentExpiresAt: null,
            },
          },
        ]),
        expectNewEvents(customerSlot(client.user.id), [{ type: 'OrderSlotTaken' }]),
        expectNewEvents(driverSlot(d.driverId), [{ type: 'OrderSlotTaken' }]),
      );
    expect((await t.service.ctx.store.readStream(surplusStream(listing.id))).at(-1)!.data).toMatchObject({
      orderId: r.body.order.id,
    });
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
    const other = await signInClient(t);
    await refused(t, (api) => api.post(`/surplus/${listing.id}/reserve`, other.token, reserveBody()), 409, 'Conflict');
    await refused(t, (api) => api.post('/surplus', d.token, listingBody()), 409, 'Conflict');
    // Nor cancel a reserved listing.
    await refused(t, (api) => api.del(`/surplus/${listing.id}`, d.token), 409);
  });

  it('reserving with an online method waits for payment, priced with the solidary share', async () => {
    const listing = await publish(await driver());
    const client = await signInClient(t);
    const r = await t
      .given()
      .when((api) =>
        api.post(`/surplus/${listing.id}/reserve`, client.token, reserveBody({ paymentMethod: 'EXCHANGE_PAY' })),
      )
      .then(
        expectResponse(200),
        expectNewEvents(surplusStream(listing.id), [{ type: 'SurplusReserved', data: { clientId: client.user.id } }]),
        // 1 % of 2223 cents is 22.23, rounded to 22: the client pays 2245.
        expectNewEvents(orderOf, [
          {
            type: 'OrderCreated',
            data: {
              status: 'WAITING_FOR_PAYMENT',
              paymentMethod: 'EXCHANGE_PAY',
              pricing: {
                basePriceCents: 2223,
                clientSolidaryCents: 22,
                clientPaysCents: 2245,
                clientChargedCents: 2245,
              },
              paymentExpiresAt: expect.any(String),
            },
          },
        ]),
      );
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
    const r = await t
      .given()
      .when((api) => api.post(`/surplus/${listing.id}/reserve`, client.token, reserveBody()))
      .then(
        expectResponse(200),
        expectNewEvents(orderOf, [
          { type: 'OrderCreated', data: { creditKind: 'surplus', pricing: { promoCreditCents: 350 } } },
        ]),
        expectNewEvents(creditStream(client.user.id), [
          {
            type: 'CreditRedeemed',
            data: {
              clientId: client.user.id,
              kind: 'surplus',
              amountCents: 350,
              split: { SURPLUS: 250, ANY: 100 },
              balancesAfter: { SURPLUS: 0, ANY: 0, ORDERS: 500 },
            },
          },
        ]),
      );
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
    const reserving = race((api) =>
      [a, b].map((c) => api.post(`/surplus/${listing.id}/reserve`, c.token, reserveBody())),
    );
    await t
      .given()
      .when(reserving.send)
      .then(
        // One reservation, never released: the loser was refused before reserving or by the stream's revision.
        expectNewEvents(surplusStream(listing.id), [{ type: 'SurplusReserved' }]),
        async ({ allNewEvents }) => {
          const created = (await allNewEvents()).filter((e) => e.type === 'OrderCreated');
          expect(created).toMatchObject([{ data: { surplusListingId: listing.id } }]);
        },
      );
    const results = reserving.responses;
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
    // The listing is reserved first, then the order is refused: the reservation is released, no order is created.
    const reservedThenReleased = (listingId: number) => [
      expectNewEvents(surplusStream(listingId), [
        { type: 'SurplusReserved', data: { listingId } },
        { type: 'SurplusReservationReleased', data: { listingId, releasedAt: NOW } },
      ]),
      async ({ allNewEvents }: { allNewEvents: () => Promise<{ type: string }[]> }) =>
        expect((await allNewEvents()).map((e) => e.type)).not.toContain('OrderCreated'),
    ];
    await t
      .given()
      .when((api) => api.post(`/surplus/${first.id}/reserve`, busyClient.token, reserveBody()))
      .then(expectError(409, 'ActiveOrderExists'), ...reservedThenReleased(first.id));
    expect(await nearbyOne(busyClient.token, first.id)).toMatchObject({ status: 'ACTIVA', remaining_liters: 1500 });

    expect((await api.post(`/surplus/${first.id}/reserve`, (await signInClient(t)).token, reserveBody())).status).toBe(
      200,
    );
    // The same driver's other listing: the driver now holds an order.
    const late = await signInClient(t);
    await t
      .given()
      .when((api) => api.post(`/surplus/${second.id}/reserve`, late.token, reserveBody()))
      .then(expectError(409, 'Conflict'), ...reservedThenReleased(second.id));
    expect(await nearbyOne(admin.token, second.id)).toMatchObject({ status: 'ACTIVA' });
  });

  it('a cancelled surplus order leaves the listing RESERVADA; the driver, free again, may publish anew', async () => {
    const d = await driver();
    const listing = await publish(d);
    const client = await signInClient(t);
    const order = (await api.post(`/surplus/${listing.id}/reserve`, client.token, reserveBody())).body.order;
    await t
      .given()
      .when((api) => api.post(`/orders/${order.id}/cancel`, client.token, {}))
      .then(
        expectResponse(200),
        expectNewEvents(orderStream(order.id), [{ type: 'OrderCancelled' }]),
        // The listing stays reserved: a cancelled surplus order does not put the water back on sale.
        expectNoNewEvents(surplusStream(listing.id)),
      );
    expect(await nearbyOne(client.token, listing.id)).toBeUndefined();
    const other = await signInClient(t);
    await refused(t, (api) => api.post(`/surplus/${listing.id}/reserve`, other.token, reserveBody()), 409);
    const fresh = await publish(d);
    expect(await mine(d)).toEqual([fresh.id]);
  });

  it('a driver holding an active order may not publish', async () => {
    const flow = await confirmedOrder(t);
    await refused(t, (api) => api.post('/surplus', flow.driver.token, listingBody()), 409, 'Conflict');
  });

  it('the owner cancels by DELETE or POST /cancel; others get 409; unknown ids 404', async () => {
    const d = await driver();
    const [a, b] = [await publish(d), await publish(d)];
    const other = await driver();
    await refused(t, (api) => api.del(`/surplus/${a.id}`, other.token), 409, 'Conflict');
    await refused(t, (api) => api.post(`/surplus/${a.id}/cancel`, other.token), 409);

    const cancelled = (listingId: number) =>
      expectNewEvents(surplusStream(listingId), [{ type: 'SurplusCancelled', data: { listingId, cancelledAt: NOW } }]);
    await t
      .given()
      .when((api) => api.del(`/surplus/${a.id}`, d.token))
      .then(expectResponse(200), async ({ response }) => expect(response.body).toEqual({ ok: true }), cancelled(a.id));
    await t
      .given()
      .when((api) => api.post(`/surplus/${b.id}/cancel`, d.token))
      .then(expectResponse(200), async ({ response }) => expect(response.body).toEqual({ ok: true }), cancelled(b.id));
    expect(await mine(d)).toEqual([]);
    expect(await nearbyOne(admin.token, a.id)).toBeUndefined();

    await refused(t, (api) => api.del(`/surplus/${a.id}`, d.token), 409);
    const client = await signInClient(t);
    await refused(t, (api) => api.post(`/surplus/${b.id}/reserve`, client.token, reserveBody()), 409, 'Conflict');

    for (const id of ['999999', 'abc', '0']) {
      await refused(t, (api) => api.del(`/surplus/${id}`, d.token), 404, 'NotFound');
      await refused(t, (api) => api.post(`/surplus/${id}/reserve`, client.token, reserveBody()), 404);
    }
  });

  it(
    'checks roles: drivers publish, list their own and ' + 'cancel; clients reserve; any signed-in caller browses',
    async () => {
      const client = await signInClient(t);
      const d = await driver();
      const listing = await publish(d);
      await refused(t, (api) => api.post('/surplus', client.token, listingBody()), 403);
      await refused(t, (api) => api.post('/surplus', admin.token, listingBody()), 403);
      expect((await api.get('/surplus/me', client.token)).status).toBe(403);
      await refused(t, (api) => api.del(`/surplus/${listing.id}`, client.token), 403);
      await refused(t, (api) => api.post(`/surplus/${listing.id}/cancel`, admin.token), 403);
      await refused(t, (api) => api.post(`/surplus/${listing.id}/reserve`, d.token, reserveBody()), 403);
      await refused(t, (api) => api.post(`/surplus/${listing.id}/reserve`, admin.token, reserveBody()), 403);
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
        const r = await refused(t, (api) => api[method](path, undefined, method === 'get' ? undefined : {}), 401);
        expect(r.status, `${method} ${path}`).toBe(401);
      }
      expect(await mine(d)).toEqual([listing.id]);
    },
  );

  it('POST /surplus: 422 naming each bad field', async () => {
    const d = await driver();
    const missing = await refused(t, (api) => api.post('/surplus', d.token, {}), 422, 'ValidationError');
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
      const r = await refused(t, (api) => api.post('/surplus', d.token, listingBody({ [field]: value })), 422);
      expect(r.status, `${field}=${String(value)}`).toBe(422);
      expect(Object.keys(r.body.details.fieldErrors), `${field}=${String(value)}`).toEqual([field]);
    }
    // The limits themselves are accepted.
    const edge = await t
      .given()
      .when((api) =>
        api.post(
          '/surplus',
          d.token,
          listingBody({
            availableLiters: 50_000,
            totalAmount: 100_000,
            durationMinutes: 720,
            description: 'x'.repeat(280),
          }),
        ),
      )
      .then(
        expectResponse(201),
        expectNewEvents(listingOf, [
          {
            type: 'SurplusListed',
            data: {
              availableLiters: 50_000,
              driverGrossCents: 10_000_000,
              description: 'x'.repeat(280),
              expiresAt: '2026-01-02T00:00:00.000Z',
            },
          },
        ]),
      );
    expect(edge.body.listing).toMatchObject({
      available_liters: 50_000,
      total_price_usd: 100_000,
      price_per_liter_cents: 200,
    });
    await t
      .given()
      .when((api) =>
        api.post('/surplus', d.token, listingBody({ availableLiters: 500, durationMinutes: 15, description: null })),
      )
      .then(
        expectResponse(201, { body: { listing: { description: null } } }),
        expectNewEvents(listingOf, [{ type: 'SurplusListed', data: { availableLiters: 500, description: null } }]),
      );
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
      // A blank number is refused, as the document's number is (a blank paymentMethod is documented as CASH_USD).
      ['radiusKm', 'lat=0&lng=0&radiusKm='],
      ['paymentFormId', 'lat=0&lng=0&paymentMethod=&paymentFormId='],
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
    const missing = await refused(t, (api) => api.post(`/surplus/${listing.id}/reserve`, client.token, {}), 422);
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
      const r = await refused(
        t,
        (api) => api.post(`/surplus/${listing.id}/reserve`, client.token, reserveBody({ [field]: value })),
        422,
      );
      expect(r.status, `${field}=${String(value)}`).toBe(422);
      expect(Object.keys(r.body.details.fieldErrors), `${field}=${String(value)}`).toEqual([field]);
      expect(r.body.message).toEqual(expect.any(String));
    }
    const noForm = await refused(
      t,
      (api) => api.post(`/surplus/${listing.id}/reserve`, client.token, reserveBody({ paymentMethod: 'PAYMENT_FORM' })),
      422,
    );
    expect(noForm.body.details.fieldErrors).toHaveProperty('paymentFormId');
    const unknownForm = await refused(
      t,
      (api) =>
        api.post(
          `/surplus/${listing.id}/reserve`,
          client.token,
          reserveBody({ paymentMethod: 'PAYMENT_FORM', paymentFormId: 999_999 }),
        ),
      422,
    );
    expect(unknownForm.body.details.fieldErrors).toHaveProperty('paymentFormId');
    expect(await nearbyOne(client.token, listing.id)).toMatchObject({ status: 'ACTIVA' });
    await t
      .given()
      .when((api) => api.post(`/surplus/${listing.id}/reserve`, client.token, reserveBody({ addressReference: null })))
      .then(
        expectResponse(200),
        expectNewEvents(surplusStream(listing.id), [{ type: 'SurplusReserved', data: { clientId: client.user.id } }]),
        expectNewEvents(orderOf, [{ type: 'OrderCreated', data: { addressReference: null } }]),
      );
  });
});
