import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderStream } from '../../domain/order/events.js';
import { ManualClock } from '../../infra/clock.js';
import { signInClient, signInDriver } from '../../tests/support/actors.js';
import {
  expectError,
  expectNewEvents,
  expectNoNewEvents,
  expectNothingAppended,
  expectResponse,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../tests/support/apiSpecification.js';
import { call, CARACAS, confirmedOrder, onlineDriver, orderBody } from '../../tests/support/orderFlows.js';

describe('offers', () => {
  let t: ApiUnderTest;
  let api: ReturnType<typeof call>;
  beforeAll(async () => {
    t = await startApiUnderTest({ clock: new ManualClock(), env: { OFFICIAL_RATE_VES: '36.5' } });
    api = call(t);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const newOrder = async (over: Record<string, unknown> = {}) => {
    const client = await signInClient(t);
    const r = await api.post('/orders', client.token, orderBody(over));
    expect(r.status).toBe(201);
    return { client, orderId: r.body.order.id as number };
  };

  it('prices a counter-offer from the driver gross so that accepting gives it back exactly (odd cents)', async () => {
    const { client, orderId } = await newOrder({ basePrice: 20 });
    const driver = await onlineDriver(t);
    const bid = await t
      .given()
      .when((api) =>
        api.post(`/orders/${orderId}/counter-offer`, driver.token, { driverGross: 17.33, estimatedMinutes: 15 }),
      )
      .then(
        expectResponse(201),
        expectNewEvents(orderStream(orderId), [
          {
            type: 'OfferPlaced',
            data: {
              orderId,
              driverId: driver.driverId,
              offerPriceCents: 1926,
              driverGrossCents: 1733,
              estimatedMinutes: 15,
              orderStatus: 'COUNTER_OFFERED',
            },
          },
        ]),
      );
    // round(1733 / 0.9) = 1926, and round(1926 × 0.9) = 1733 again.
    expect(bid.body.offer).toMatchObject({
      offer_price_cents: 1926,
      offer_price_usd: 19.26,
      driver_gross_cents: 1733,
      status: 'PENDING',
    });
    const order = (await api.get(`/orders/${orderId}`, client.token)).body.order;
    expect(order.status).toBe('COUNTER_OFFERED');
    expect(order.offers[0]).toMatchObject({ id: bid.body.offer.id, offer_price_usd: 19.26 });
    expect(order.offers[0]).not.toHaveProperty('driver_gross_cents');

    const accepted = await t
      .given()
      .when((api) => api.post(`/counter-offers/${bid.body.offer.id}/accept`, client.token))
      .then(
        expectResponse(200),
        expectNewEvents(orderStream(orderId), [
          {
            type: 'OfferAccepted',
            data: {
              offerId: bid.body.offer.id,
              driverId: driver.driverId,
              clientId: client.user.id,
              status: 'CONFIRMED',
            },
          },
        ]),
      );
    expect(accepted.body.order).toMatchObject({
      status: 'CONFIRMED',
      base_price_cents: 1926,
      client_pays_cents: 1926,
      client_charged_usd: 19.26,
    });
    const driverView = (await api.get(`/orders/${orderId}`, driver.token)).body.order;
    expect(driverView).toMatchObject({
      driver_gross_cents: 1733,
      platform_revenue_cents: 193,
      driver_receives_cents: 1733,
    });
  });

  it(
    'answers the alias routes (/driver-accept, /offers) ' + 'and accept-counter takes the latest counter-offer',
    async () => {
      const { client, orderId } = await newOrder();
      const a = await onlineDriver(t);
      const b = await onlineDriver(t);
      const c = await onlineDriver(t);
      const events = orderStream(orderId);
      await t
        .given()
        .when((api) => api.post(`/orders/${orderId}/accept-counter`, client.token))
        .then(expectResponse(409), expectNoNewEvents(events));
      const atPrice = await api.post(`/orders/${orderId}/driver-accept`, a.token, {});
      expect(atPrice.status).toBe(201);
      expect(atPrice.body.offer.offer_price_cents).toBe(2500);
      expect((await api.get(`/orders/${orderId}`, client.token)).body.order.status).toBe('BROADCASTING');
      const first = await api.post(`/orders/${orderId}/offers`, b.token, { driverGross: 24 });
      expect(first.status).toBe(201);
      const latest = await api.post(`/orders/${orderId}/counter-offer`, c.token, { driverGross: 23 });
      const accepted = await t
        .given()
        .when((api) => api.post(`/orders/${orderId}/accept-counter`, client.token))
        .then(
          expectResponse(200),
          expectNewEvents(events, [
            { type: 'OfferAccepted', data: { offerId: latest.body.offer.id, driverId: c.driverId } },
          ]),
        );
      expect(accepted.body.order).toMatchObject({
        status: 'CONFIRMED',
        driver: { id: c.driverId },
        base_price_cents: latest.body.offer.offer_price_cents,
      });
      await t
        .given()
        .when((api) => api.post(`/orders/${orderId}/accept-counter`, client.token))
        .then(expectResponse(409), expectNoNewEvents(events));
      // The losing offers were closed: accepting one now is a clean 409.
      await t
        .given()
        .when((api) => api.post(`/orders/offers/${first.body.offer.id}/accept`, client.token))
        .then(expectError(409, 'Conflict'), expectNoNewEvents(events));
    },
  );

  it('rejects an offer; the order goes back to BROADCASTING; a second reject is a 409', async () => {
    const { client, orderId } = await newOrder();
    const driver = await onlineDriver(t);
    const bid = await api.post(`/orders/${orderId}/counter-offer`, driver.token, { driverGross: 30 });
    const events = orderStream(orderId);
    const rejected = await t
      .given()
      .when((api) => api.post(`/counter-offers/${bid.body.offer.id}/reject`, client.token))
      .then(
        expectResponse(200),
        expectNewEvents(events, [
          {
            type: 'OfferRejected',
            data: { orderId, offerId: bid.body.offer.id, driverId: driver.driverId, orderStatus: 'BROADCASTING' },
          },
        ]),
      );
    expect(rejected.body).toEqual({ ok: true });
    const order = (await api.get(`/orders/${orderId}`, client.token)).body.order;
    expect(order).toMatchObject({ status: 'BROADCASTING', offers: [] });
    await t
      .given()
      .when((api) => api.post(`/counter-offers/${bid.body.offer.id}/reject`, client.token))
      .then(expectError(409, 'Conflict'), expectNoNewEvents(events));
    await t
      .given()
      .when((api) => api.post('/counter-offers/999999/reject', client.token))
      .then(expectError(404, 'NotFound'), expectNothingAppended);
    const stranger = await signInClient(t);
    // Another client's offer is answered like an unknown one: strangers learn nothing of other orders.
    for (const path of [`/counter-offers/${bid.body.offer.id}/reject`, `/orders/offers/${bid.body.offer.id}/accept`]) {
      await t
        .given()
        .when((api) => api.post(path, stranger.token))
        .then(expectError(404, 'NotFound'), expectNothingAppended);
    }
    await t
      .given()
      .when((api) => api.post(`/counter-offers/${bid.body.offer.id}/reject`, driver.token))
      .then(expectResponse(403), expectNothingAppended);
  });

  it('refuses an order above the remaining liters unless forced, then warns (over_capacity)', async () => {
    const { client, orderId } = await newOrder({ litersRequested: 3000 });
    const small = await onlineDriver(t, { liters: 1000 });
    await t
      .given()
      .when((api) => api.post(`/orders/${orderId}/accept`, small.token, {}))
      .then(
        expectResponse(409, { body: { error: 'InsufficientLiters', remaining_liters: 1000, requested_liters: 3000 } }),
        expectNothingAppended,
      );
    const forced = await t
      .given()
      .when((api) => api.post(`/orders/${orderId}/counter-offer`, small.token, { force: true, driverGross: 26 }))
      .then(
        expectResponse(201),
        expectNewEvents(orderStream(orderId), [
          { type: 'OfferPlaced', data: { driverId: small.driverId, overCapacity: true, availableLiters: 1000 } },
        ]),
      );
    expect(forced.body.offer).toMatchObject({ over_capacity: true, available_liters: 1000 });
    expect(typeof forced.body.warning).toBe('string');
    // A forced bid promised a refill: the client may still take it.
    expect((await api.post(`/orders/offers/${forced.body.offer.id}/accept`, client.token)).status).toBe(200);
  });

  it('counts liters already committed: remaining = available − accepted undelivered orders', async () => {
    const driver = await onlineDriver(t, { liters: 5000 });
    await confirmedOrder(t, { driver, body: { litersRequested: 4000 } });
    const { orderId } = await newOrder({ litersRequested: 2000 });
    await t
      .given()
      .when((api) => api.post(`/orders/${orderId}/accept`, driver.token, {}))
      .then(
        expectResponse(409, { body: { error: 'InsufficientLiters', remaining_liters: 1000, requested_liters: 2000 } }),
        expectNothingAppended,
      );
  });

  it('shows a busy driver’s offer as driver_busy and refuses to confirm it (one active order per driver)', async () => {
    const driver = await onlineDriver(t);
    await confirmedOrder(t, { driver, body: { litersRequested: 1000 } });
    const { client, orderId } = await newOrder({ litersRequested: 1000 });
    const bid = await api.post(`/orders/${orderId}/accept`, driver.token, {});
    expect(bid.status).toBe(201);
    const order = (await api.get(`/orders/${orderId}`, client.token)).body.order;
    expect(order.offers[0].driver_busy).toBe(true);
    await t
      .given()
      .when((api) => api.post(`/orders/offers/${bid.body.offer.id}/accept`, client.token))
      .then(expectError(409, 'Conflict'), expectNothingAppended);
  });

  it('lets only approved, online drivers bid', async () => {
    const { client, orderId } = await newOrder();
    const offline = await signInDriver(t, { liters: 5000 });
    // Where the offer view answers 404 (no position to measure the radius from), so does a bid.
    const bidBy = (token: string, id = orderId) => t.given().when((api) => api.post(`/orders/${id}/accept`, token, {}));
    await bidBy(offline.token).then(expectError(404, 'OrderNotFound'), expectNothingAppended);
    const pending = await signInDriver(t, { approved: false });
    await bidBy(pending.token).then(expectResponse(404), expectNothingAppended);
    const parked = await signInDriver(t, { liters: 5000, lat: 10.4906, lng: -66.9036 });
    await bidBy(parked.token).then(expectError(409, 'Conflict'), expectNothingAppended);
    await bidBy(offline.token, 999_999).then(expectError(404, 'OrderNotFound'), expectNothingAppended);
    await bidBy(client.token).then(expectResponse(403), expectNothingAppended);
    // An order already taken is closed to bids: domain/order/order.test.ts (PlaceOffer).
  });

  it(
    'shows the bidding driver the order with its client at top level; ' +
      'closed orders (but to their driver) and unknown ids are 404',
    async () => {
      const { client, orderId } = await newOrder({ paymentMethod: 'EXCHANGE_PAY' });
      const driver = await onlineDriver(t);
      const view = await api.get(`/orders/${orderId}/offer`, driver.token);
      expect(view.status).toBe(200);
      expect(view.body).toMatchObject({
        id: orderId,
        status: 'BROADCASTING',
        client: { id: client.user.id, name: 'Cliente de prueba', phone: client.user.phone },
        my_offer: null,
      });
      expect(view.body.distance_km).toBeCloseTo(1.11, 1);
      for (const hidden of [
        'client_pays_usd',
        'promo_credit_usd',
        'client_charged_usd',
        'client_solidary_usd',
        'solidary_fund_usd',
        'delivery_pin',
        'billing',
      ]) {
        expect(view.body).not.toHaveProperty(hidden);
      }
      const unknown = await api.get('/orders/999999/offer', driver.token);
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toBe('OrderNotFound');

      const bid = await api.post(`/orders/${orderId}/accept`, driver.token, {});
      expect((await api.get(`/orders/${orderId}/offer`, driver.token)).body.my_offer).toMatchObject({
        id: bid.body.offer.id,
      });
      expect((await api.post(`/orders/offers/${bid.body.offer.id}/accept`, client.token)).body.order.status).toBe(
        'WAITING_FOR_PAYMENT',
      );
      const assigned = await api.get(`/orders/${orderId}/offer`, driver.token);
      expect(assigned.body).toMatchObject({
        id: orderId,
        status: 'WAITING_FOR_PAYMENT',
        client: { id: client.user.id },
      });
      const stranger = await onlineDriver(t);
      expect((await api.get(`/orders/${orderId}/offer`, stranger.token)).body.error).toBe('OrderNotFound');
    },
  );

  it(
    'keeps the order and its client from drivers who could not bid ' +
      'on it: pending, offline or too far (404 as an unknown id)',
    async () => {
      const { orderId } = await newOrder();
      const pending = await signInDriver(t, { approved: false });
      const offline = await signInDriver(t, { liters: 5000 });
      const far = await onlineDriver(t, { lat: CARACAS.latitude + 1, lng: CARACAS.longitude });
      for (const driver of [pending, offline, far]) {
        const r = await api.get(`/orders/${orderId}/offer`, driver.token);
        expect([r.status, r.body]).toEqual([404, { error: 'OrderNotFound', message: 'Order not found.' }]);
      }
      expect((await api.get(`/orders/${orderId}/offer`, (await onlineDriver(t)).token)).status).toBe(200);
    },
  );

  it('answers 422 naming each bad field of a bid', async () => {
    const { orderId } = await newOrder();
    const driver = await onlineDriver(t);
    const bad = await t
      .given()
      .when((api) =>
        api.post(`/orders/${orderId}/counter-offer`, driver.token, {
          driverGross: 0,
          estimatedMinutes: 241,
          force: 'yes',
        }),
      )
      .then(expectError(422, 'ValidationError'), expectNothingAppended);
    expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual(['driverGross', 'estimatedMinutes', 'force']);
    for (const driverGross of [-1, 100_000.01, 12.345, '12']) {
      const r = await t
        .given()
        .when((api) => api.post(`/orders/${orderId}/counter-offer`, driver.token, { driverGross }))
        .then(expectError(422, 'ValidationError'), expectNothingAppended);
      expect(Object.keys(r.body.details.fieldErrors)).toEqual(['driverGross']);
    }
    const accept = await t
      .given()
      .when((api) => api.post(`/orders/${orderId}/accept`, driver.token, { estimatedMinutes: 0 }))
      .then(expectError(422, 'ValidationError'), expectNothingAppended);
    expect(Object.keys(accept.body.details.fieldErrors)).toEqual(['estimatedMinutes']);
  });
});
