import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderStream } from '../../domain/order/events.js';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin, signInClient } from '../../tests/support/actors.js';
import {
  expectError,
  expectNewEvents,
  expectNoNewEvents,
  expectResponse,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../tests/support/apiSpecification.js';
import {
  arrive,
  call,
  CARACAS,
  confirmedOrder,
  near,
  onlineDriver,
  orderBody,
} from '../../tests/support/orderFlows.js';
import type { TestResponse } from '../../tests/support/testService.js';

const CLIENT_HIDDEN = ['platform_revenue', 'solidary_fund', 'driver_solidary', 'driver_gross', 'driver_receives'];

const keysOfFamily = (view: Record<string, unknown>, family: string) =>
  Object.keys(view).filter((k) => k === family || k.startsWith(`${family}_`));

describe('orders: the main flow', () => {
  const clock = new ManualClock();
  let t: ApiUnderTest;
  let api: ReturnType<typeof call>;
  beforeAll(async () => {
    t = await startApiUnderTest({ clock, env: { OFFICIAL_RATE_VES: '36.5' } });
    api = call(t);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('create → offer → accept → start → arrived → deliver → receipt, with each role’s view', async () => {
    const client = await signInClient(t);
    const driver = await onlineDriver(t);

    const created = await t
      .given()
      .when((api) =>
        api.post(
          '/orders',
          client.token,
          orderBody({ addressReference: 'Casa azul', notes: 'Tocar dos veces', waterType: 'INDUSTRIAL' }),
        ),
      )
      .then(
        expectResponse(201),
        expectNewEvents(
          (r: TestResponse) => orderStream(r.body.order.id),
          [
            {
              type: 'OrderCreated',
              data: {
                clientId: client.user.id,
                status: 'BROADCASTING',
                latitude: CARACAS.latitude,
                longitude: CARACAS.longitude,
                addressReference: 'Casa azul',
                litersRequested: 2000,
                waterType: 'INDUSTRIAL',
                paymentMethod: 'CASH_USD',
                notes: 'Tocar dos veces',
                surplusListingId: null,
                driverId: null,
                billing: null,
                deliveryPin: expect.stringMatching(/^\d{4}$/),
                createdAt: '2026-01-01T12:00:00.000Z',
                expiresAt: '2026-01-01T12:30:00.000Z',
              },
            },
          ],
        ),
      );
    const order = created.body.order;
    expect(order).toMatchObject({
      status: 'BROADCASTING',
      latitude: CARACAS.latitude,
      longitude: CARACAS.longitude,
      address_reference: 'Casa azul',
      liters_requested: 2000,
      water_type: 'INDUSTRIAL',
      payment_method: 'CASH_USD',
      base_price_usd: 25,
      client_solidary_usd: 0,
      client_pays_usd: 25,
      promo_credit_usd: 0,
      client_charged_usd: 25,
      is_fully_promoted: false,
      notes: 'Tocar dos veces',
      surplus_listing_id: null,
      billing: null,
      offers: [],
    });
    expect(Number.isInteger(order.id)).toBe(true);
    expect(order).not.toHaveProperty('delivery_pin');
    for (const f of CLIENT_HIDDEN) expect(keysOfFamily(order, f)).toEqual([]);
    expect(order.expires_at).toBe('2026-01-01T12:30:00.000Z');

    // A nearby driver sees it in the feed and bids the published price.
    const feed = await api.get('/driver/orders', driver.token);
    expect(feed.status).toBe(200);
    expect(feed.body.available.map((o: { id: number }) => o.id)).toContain(order.id);
    expect(feed.body.active).toBeNull();

    const detailForBidder = await api.get(`/orders/${order.id}/offer`, driver.token);
    expect(detailForBidder.status).toBe(200);
    expect(detailForBidder.body).toMatchObject({
      id: order.id,
      base_price_usd: 25,
      driver_gross_usd: 22.5,
      driver_receives_usd: 22.5,
      client: { id: client.user.id },
    });
    expect(detailForBidder.body).not.toHaveProperty('order');

    const events = orderStream(order.id);
    const bid = await t
      .given()
      .when((api) => api.post(`/orders/${order.id}/accept`, driver.token, { estimatedMinutes: 20, driverGross: 999 }))
      .then(
        expectResponse(201),
        expectNewEvents(events, [
          {
            type: 'OfferPlaced',
            data: {
              orderId: order.id,
              driverId: driver.driverId,
              offerPriceCents: 2500,
              driverGrossCents: 2250, // the driver's own figure (999) is ignored
              estimatedMinutes: 20,
              availableLiters: 8000,
              overCapacity: false,
              withdrawnOfferId: null,
              orderStatus: 'BROADCASTING',
            },
          },
        ]),
      );
    expect(bid.body.offer).toMatchObject({
      order_id: order.id,
      driver_id: driver.driverId,
      offer_price_cents: 2500,
      offer_price_usd: 25,
      estimated_minutes: 20,
      available_liters: 8000,
      status: 'PENDING',
      over_capacity: false,
    });
    expect(bid.body.offer.driver_latitude).toBeCloseTo(CARACAS.latitude + 0.01);
    expect(bid.body).not.toHaveProperty('warning');

    // The client sees the pending offer with distance, ETA and public driver fields, never coordinates.
    const withOffer = await api.get(`/orders/${order.id}`, client.token);
    expect(withOffer.status).toBe(200);
    const [pending] = withOffer.body.order.offers;
    expect(pending).toMatchObject({
      id: bid.body.offer.id,
      driver_busy: false,
      eta_minutes: 20,
      driver: { id: driver.driverId, name: 'Conductor de prueba' },
    });
    expect(pending.distance_km).toBeCloseTo(1.11, 1);
    expect(pending).not.toHaveProperty('driver_latitude');
    expect(pending).not.toHaveProperty('driver_longitude');
    expect(pending.driver).not.toHaveProperty('phone');
    expect(JSON.stringify(pending)).not.toContain(String(CARACAS.latitude + 0.01));

    const accepted = await t
      .given()
      .when((api) => api.post(`/orders/offers/${bid.body.offer.id}/accept`, client.token))
      .then(
        expectResponse(200),
        expectNewEvents(events, [
          {
            type: 'OfferAccepted',
            data: {
              orderId: order.id,
              offerId: bid.body.offer.id,
              driverId: driver.driverId,
              clientId: client.user.id,
              litersRequested: 2000,
              status: 'CONFIRMED',
              paymentExpiresAt: null,
            },
          },
        ]),
      );
    expect(accepted.body.order).toMatchObject({ status: 'CONFIRMED', offers: [], driver: { id: driver.driverId } });
    const pin: string = accepted.body.order.delivery_pin;
    expect(pin).toMatch(/^\d{4}$/);

    // The assigned driver's view: the commission, what to collect in cash, no PIN, no billing.
    const driverView = (await api.get(`/orders/${order.id}`, driver.token)).body.order;
    expect(driverView).toMatchObject({
      status: 'CONFIRMED',
      base_price_usd: 25,
      platform_revenue_usd: 2.5,
      driver_gross_usd: 22.5,
      driver_solidary_usd: 0,
      driver_receives_usd: 22.5,
      client_pays_usd: 25,
      promo_credit_usd: 0,
      client_charged_usd: 25,
      client: { id: client.user.id },
    });
    expect(driverView).not.toHaveProperty('delivery_pin');
    expect(driverView).not.toHaveProperty('billing');
    expect(keysOfFamily(driverView, 'client_solidary')).toEqual([]);
    expect(keysOfFamily(driverView, 'solidary_fund')).toEqual([]);
    expect(driverView.breakdown.map((l: { code: string }) => l.code)).toContain('platform_revenue');

    const feedAfter = await api.get('/driver/orders', driver.token);
    expect(feedAfter.body.active).toMatchObject({ id: order.id, status: 'CONFIRMED' });
    expect(feedAfter.body.available.map((o: { id: number }) => o.id)).not.toContain(order.id);

    const started = await t
      .given()
      .when((api) => api.post(`/orders/${order.id}/start`, driver.token))
      .then(
        expectResponse(200),
        expectNewEvents(events, [
          {
            type: 'TripStarted',
            data: { orderId: order.id, driverId: driver.driverId, startedAt: '2026-01-01T12:00:00.000Z' },
          },
        ]),
      );
    expect(started.body.order).toMatchObject({ id: order.id, status: 'IN_PROGRESS' });
    expect(started.body.order).not.toHaveProperty('delivery_pin');

    clock.advance(60_000); // 1.1 km from its last position in a minute: a plausible drive
    await t
      .given()
      .when((api) => api.post(`/orders/${order.id}/location`, driver.token, near(0.02)))
      .then(
        expectResponse(204),
        expectNewEvents(events, [
          {
            type: 'DriverLocationRecorded',
            data: {
              orderId: order.id,
              driverId: driver.driverId,
              latitude: CARACAS.latitude + 0.02,
              longitude: CARACAS.longitude,
              recordedAt: '2026-01-01T12:01:00.000Z',
            },
          },
        ]),
      );
    const tracking = await api.get(`/orders/${order.id}/tracking`, client.token);
    expect(tracking.status).toBe(200);
    expect(tracking.body).toMatchObject({
      order: { id: order.id, status: 'IN_PROGRESS' },
      driver: { id: driver.driverId, currentLat: CARACAS.latitude + 0.02 },
      avgSpeedKmh: 25,
    });
    expect(tracking.body.distanceKm).toBeCloseTo(2.224, 2);
    expect(tracking.body.estimatedMinutes).toBe(Math.ceil((tracking.body.distanceKm / 25) * 60));

    const tooFar = await t
      .given()
      .when((api) => api.post(`/orders/${order.id}/arrived`, driver.token))
      .then(expectError(409, 'TooFarFromDestination'), expectNoNewEvents(events));
    expect(tooFar.body.distanceKm).toBeCloseTo(2.224, 2);

    const arrived = await t
      .given()
      .when((api) => api.post(`/orders/${order.id}/arrived`, driver.token, near(0.003)))
      .then(
        expectResponse(200),
        // The position sent with the arrival is recorded first, then the arrival from it.
        expectNewEvents(events, [
          {
            type: 'DriverLocationRecorded',
            data: { orderId: order.id, latitude: CARACAS.latitude + 0.003, recordedAt: '2026-01-01T12:01:00.000Z' },
          },
          {
            type: 'DriverArrived',
            data: { orderId: order.id, driverId: driver.driverId, arrivedAt: '2026-01-01T12:01:00.000Z' },
          },
        ]),
      );
    expect(arrived.body).toMatchObject({ ok: true, status: 'ARRIVED', arrivedAt: '2026-01-01T12:01:00.000Z' });
    expect(arrived.body.distanceMeters).toBeGreaterThan(300);
    expect(arrived.body.distanceMeters).toBeLessThan(500);
    // Arriving again answers the first arrival and records nothing new.
    const again = await t
      .given()
      .when((api) => api.post(`/orders/${order.id}/arrived`, driver.token))
      .then(expectResponse(200), expectNoNewEvents(events));
    expect(again.body).toEqual(arrived.body);

    const clientArrived = (await api.get(`/orders/${order.id}`, client.token)).body.order;
    expect(clientArrived).toMatchObject({ status: 'ARRIVED', delivery_pin: pin });

    // A wrong PIN is refused, and recorded: it counts towards the lock.
    await t
      .given()
      .when((api) =>
        api.post(`/orders/${order.id}/deliver`, driver.token, {
          actualLiters: 1900,
          deliveryPin: pin === '0000' ? '0001' : '0000',
        }),
      )
      .then(
        expectError(400, 'DeliveryError'),
        expectNewEvents(events, [
          {
            type: 'DeliveryPinRejected',
            data: { orderId: order.id, driverId: driver.driverId, failedAttempts: 1, lockedUntil: null },
          },
        ]),
      );

    const delivered = await t
      .given()
      .when((api) => api.post(`/orders/${order.id}/deliver`, driver.token, { actualLiters: 1900, deliveryPin: pin }))
      .then(
        expectResponse(200),
        expectNewEvents(events, [
          {
            type: 'OrderDelivered',
            data: {
              orderId: order.id,
              clientId: client.user.id,
              driverId: driver.driverId,
              litersRequested: 2000,
              actualLiters: 1900,
              paymentMethod: 'CASH_USD',
              isValidPromotion: false,
              deliveredAt: '2026-01-01T12:01:00.000Z',
            },
          },
        ]),
      );
    expect(delivered.body).toEqual({ ok: true });

    const done = (await api.get(`/orders/${order.id}`, client.token)).body.order;
    expect(done).toMatchObject({ status: 'DELIVERED', actual_liters: 1900, delivered_at: '2026-01-01T12:01:00.000Z' });
    expect(done).not.toHaveProperty('delivery_pin');

    const receipt = await api.get(`/orders/${order.id}/receipt`, client.token);
    expect(receipt.status).toBe(200);
    expect(receipt.body.receipt).toMatchObject({
      order_id: order.id,
      status: 'DELIVERED',
      liters_requested: 2000,
      actual_liters: 1900,
      payment_method: 'CASH_USD',
      is_fully_promoted: false,
      breakdown: {
        base_price_usd: 25,
        client_pays_usd: 25,
        client_charged_usd: 25,
        platform_commission_usd: 2.5,
        driver_gross_usd: 22.5,
        driver_receives_usd: 22.5,
        solidary_fund_usd: 0,
      },
      driver: { id: driver.driverId, name: 'Conductor de prueba', vehicle: { capacity_liters: 10_000 } },
      rating: null,
    });

    // Delivery drew the actual liters from the tank.
    const me = await api.get('/me', driver.token);
    expect(me.body.user.driver.availableLiters).toBe(8000 - 1900);

    // The admin view shows every money family and the billing slot.
    const admin = await signInAdmin(t);
    const adminView = (await api.get(`/orders/${order.id}`, admin.token)).body.order;
    expect(adminView).toMatchObject({
      id: order.id,
      solidary_fund_usd: 0,
      platform_revenue_usd: 2.5,
      client_pays_usd: 25,
      driver_receives_usd: 22.5,
      billing: null,
    });
  });

  it('lists the client’s orders: active, flat history and cursor history with filters', async () => {
    const client = await signInClient(t);
    expect((await api.get('/orders/active', client.token)).body).toEqual({ order: null });
    const first = await confirmedOrder(t, { client });
    await arrive(t, first);
    await t
      .given()
      .when((api) =>
        api.post(`/orders/${first.orderId}/deliver`, first.driver.token, {
          actualLiters: 2000,
          deliveryPin: first.pin,
        }),
      )
      .then(
        expectResponse(200),
        expectNewEvents(orderStream(first.orderId), [{ type: 'OrderDelivered', data: { actualLiters: 2000 } }]),
      );
    // Delivery freed the client's slot: a second order opens.
    const second = (
      await t
        .given()
        .when((api) => api.post('/orders', client.token, orderBody()))
        .then(
          expectResponse(201),
          expectNewEvents(
            (r: TestResponse) => orderStream(r.body.order.id),
            [{ type: 'OrderCreated', data: { clientId: client.user.id, status: 'BROADCASTING' } }],
          ),
        )
    ).body.order;
    const active = await api.get('/orders/active', client.token);
    expect(active.body.order).toMatchObject({ id: second.id, status: 'BROADCASTING' });
    expect(active.body.order).not.toHaveProperty('delivery_pin');

    const flat = await api.get('/orders/history?limit=1', client.token);
    expect(flat.body.orders.map((o: { id: number }) => o.id)).toEqual([second.id]);

    const page1 = await api.get('/orders?limit=1', client.token);
    expect(page1.status).toBe(200);
    expect(page1.body.items).toHaveLength(1);
    expect(page1.body.items[0]).toMatchObject({
      id: second.id,
      status: 'BROADCASTING',
      client_pays_usd: 25,
      driver: null,
      delivered_at: null,
    });
    expect(page1.body.has_more).toBe(true);
    const page2 = await api.get(`/orders?limit=1&cursor=${page1.body.next_cursor}`, client.token);
    expect(page2.body.items[0]).toMatchObject({
      id: first.orderId,
      status: 'DELIVERED',
      driver: { id: first.driver.driverId, name: 'Conductor de prueba' },
    });
    expect(page2.body).toMatchObject({ has_more: false, next_cursor: null });

    expect(
      (await api.get('/orders?status=DELIVERED', client.token)).body.items.map((o: { id: number }) => o.id),
    ).toEqual([first.orderId]);
    expect((await api.get('/orders?date_from=2026-01-01&date_to=2026-01-01', client.token)).body.items).toHaveLength(2);
    expect((await api.get('/orders?date_from=2026-01-02', client.token)).body.items).toHaveLength(0);

    const bad = await api.get('/orders?date_from=2026-01-05&date_to=2026-01-01&limit=0&cursor=zzz', client.token);
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual(['date_to', 'limit']);
    const badCursor = await api.get('/orders?cursor=not-a-cursor', client.token);
    expect(badCursor.status).toBe(422);
    expect(badCursor.body.details.fieldErrors).toHaveProperty('cursor');
  });

  it('answers the cancellation reasons of the caller’s role', async () => {
    const client = await signInClient(t);
    const driver = await onlineDriver(t);
    const admin = await signInAdmin(t);
    const codes = async (token: string) =>
      (await api.get('/orders/cancellation-reasons', token)).body.reasons.map((r: { code: string }) => r.code);
    expect(await codes(client.token)).toEqual([
      'CLIENT_CHANGED_MIND',
      'CLIENT_PRICE_TOO_HIGH',
      'CLIENT_DELAY',
      'CLIENT_DUPLICATE',
      'CLIENT_FOUND_ALTERNATIVE',
      'CLIENT_OTHER',
    ]);
    expect(await codes(driver.token)).toEqual([
      'DRIVER_TOO_FAR',
      'DRIVER_NO_CAPACITY',
      'DRIVER_CLIENT_UNREACHABLE',
      'DRIVER_VEHICLE_ISSUE',
      'DRIVER_OTHER',
    ]);
    expect(await codes(admin.token)).toEqual([
      'ADMIN_FRAUD',
      'ADMIN_TEST',
      'ADMIN_SUPPORT',
      'ADMIN_DUPLICATE',
      'ADMIN_OTHER',
    ]);
    expect((await api.get('/orders/cancellation-reasons')).status).toBe(401);
  });
});
