import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderStream } from '../../domain/order/events.js';
import { customerSlot, driverSlot } from '../../domain/order/slots.js';
import { ManualClock } from '../../infra/clock.js';
import { signInClient } from '../../tests/support/actors.js';
import {
  expectError,
  expectNewEvents,
  expectNoNewEvents,
  expectResponse,
  startApiUnderTest,
  race,
  type ApiUnderTest,
} from '../../tests/support/apiSpecification.js';
import { arrive, call, confirmedOrder, onlineDriver, orderBody } from '../../tests/support/orderFlows.js';

const statuses = (rs: { status: number }[]) => rs.map((r) => r.status).sort();

describe('orders under concurrent requests', () => {
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

  it('one client creating two orders at once: one 201, the others 409 ActiveOrderExists', async () => {
    const client = await signInClient(t);
    const creating = race((api) => Array.from({ length: 4 }, () => api.post('/orders', client.token, orderBody())));
    await t
      .given()
      .when(creating.send)
      .then(
        // One slot taken, for the one order created.
        expectNewEvents(customerSlot(client.user.id), [{ type: 'OrderSlotTaken' }]),
      );
    const rs = creating.responses;
    expect(statuses(rs)).toEqual([201, 409, 409, 409]);
    expect((await t.service.ctx.store.readStream(customerSlot(client.user.id)))[0].data).toMatchObject({
      orderId: rs.find((r) => r.status === 201)!.body.order.id,
    });
    for (const r of rs.filter((x) => x.status === 409)) expect(r.body.error).toBe('ActiveOrderExists');
    const active = await api.get('/orders/active', client.token);
    expect(active.body.order.id).toBe(rs.find((r) => r.status === 201)!.body.order.id);
    expect((await api.get('/orders/history', client.token)).body.orders).toHaveLength(1);
  });

  it('many drivers bidding while the client accepts: one winner, every late bid a clean 409', async () => {
    const client = await signInClient(t);
    const orderId = (await api.post('/orders', client.token, orderBody())).body.order.id;
    const drivers = await Promise.all(Array.from({ length: 7 }, () => onlineDriver(t)));
    const first = await api.post(`/orders/${orderId}/accept`, drivers[0].token, {});
    const racing = race((api) => [
      api.post(`/orders/offers/${first.body.offer.id}/accept`, client.token),
      ...drivers.slice(1).map((d, i) => api.post(`/orders/${orderId}/counter-offer`, d.token, { driverGross: 20 + i })),
    ]);
    await t
      .given()
      .when(racing.send)
      .then(expectResponse(200), async () => {
        // The order's stream holds one acceptance, and an offer for each bid that was answered 201, no more.
        const placed = racing.responses.slice(1).filter((b) => b.status === 201).length;
        const events = (await t.service.ctx.store.readStream(orderStream(orderId))).map((e) => e.type);
        expect(events.filter((e) => e === 'OfferAccepted')).toHaveLength(1);
        expect(events.filter((e) => e === 'OfferPlaced')).toHaveLength(1 + placed);
      });
    const [accepted, ...bids] = racing.responses;
    expect(accepted.body.order).toMatchObject({ status: 'CONFIRMED', driver: { id: drivers[0].driverId }, offers: [] });
    for (const b of bids) {
      expect([201, 409]).toContain(b.status);
      if (b.status === 409) expect(b.body.error).toBe('Conflict');
    }
    const order = (await api.get(`/orders/${orderId}`, client.token)).body.order;
    expect(order).toMatchObject({ status: 'CONFIRMED', offers: [], driver: { id: drivers[0].driverId } });
  });

  it('a client accepting two offers at once: one 200, one 409', async () => {
    const client = await signInClient(t);
    const orderId = (await api.post('/orders', client.token, orderBody())).body.order.id;
    const [a, b] = await Promise.all([onlineDriver(t), onlineDriver(t)]);
    const offerA = (await api.post(`/orders/${orderId}/accept`, a.token, {})).body.offer.id;
    const offerB = (await api.post(`/orders/${orderId}/counter-offer`, b.token, { driverGross: 21 })).body.offer.id;
    const accepting = race((api) => [
      api.post(`/orders/offers/${offerA}/accept`, client.token),
      api.post(`/counter-offers/${offerB}/accept`, client.token),
    ]);
    await t
      .given()
      .when(accepting.send)
      .then(expectNewEvents(orderStream(orderId), [{ type: 'OfferAccepted', data: { orderId } }]));
    const rs = accepting.responses;
    expect(statuses(rs)).toEqual([200, 409]);
    expect(rs.find((r) => r.status === 409)!.body.error).toBe('Conflict');
    const winner = rs.find((r) => r.status === 200)!.body.order.driver.id;
    expect([a.driverId, b.driverId]).toContain(winner);
    expect((await api.get(`/orders/${orderId}`, client.token)).body.order.driver.id).toBe(winner);
  });

  it('two clients confirming the same driver at once: the driver gets one order, the other client a 409', async () => {
    const driver = await onlineDriver(t, { liters: 9000 });
    const clients = await Promise.all([signInClient(t), signInClient(t)]);
    const offers: { token: string; offerId: number }[] = [];
    for (const c of clients) {
      const orderId = (await api.post('/orders', c.token, orderBody({ litersRequested: 1000 }))).body.order.id;
      offers.push({
        token: c.token,
        offerId: (await api.post(`/orders/${orderId}/accept`, driver.token, {})).body.offer.id,
      });
    }
    const confirming = race((api) => offers.map((o) => api.post(`/orders/offers/${o.offerId}/accept`, o.token)));
    await t
      .given()
      .when(confirming.send)
      .then(expectNewEvents(driverSlot(driver.driverId), [{ type: 'OrderSlotTaken' }]));
    const rs = confirming.responses;
    expect(statuses(rs)).toEqual([200, 409]);
    const feed = await api.get('/driver/orders', driver.token);
    expect(feed.body.active.id).toBe(rs.find((r) => r.status === 200)!.body.order.id);
  });

  it('a double-tapped deliver: one 200, one 409 DeliveryError; the tank is drawn once', async () => {
    const f = await confirmedOrder(t);
    await arrive(t, f);
    const tapping = race((api) =>
      [0, 1].map(() =>
        api.post(`/orders/${f.orderId}/deliver`, f.driver.token, { actualLiters: 1500, deliveryPin: f.pin }),
      ),
    );
    await t
      .given()
      .when(tapping.send)
      .then(expectNewEvents(orderStream(f.orderId), [{ type: 'OrderDelivered', data: { actualLiters: 1500 } }]));
    const rs = tapping.responses;
    expect(statuses(rs)).toEqual([200, 409]);
    expect(rs.find((r) => r.status === 409)!.body.error).toBe('DeliveryError');
    expect((await api.get('/me', f.driver.token)).body.user.driver.availableLiters).toBe(8000 - 1500);
  });

  it('stops PIN guessing: five wrong PINs lock delivery for 15 minutes, even the right one', async () => {
    const f = await confirmedOrder(t);
    await arrive(t, f);
    const wrongPins = Array.from({ length: 10 }, (_, i) => String((Number(f.pin) + 1 + i) % 10_000).padStart(4, '0'));
    const guessing = race((api) =>
      wrongPins.map((deliveryPin) =>
        api.post(`/orders/${f.orderId}/deliver`, f.driver.token, { actualLiters: 2000, deliveryPin }),
      ),
    );
    const rejected = (failedAttempts: number, lockedUntil: string | null) => ({
      type: 'DeliveryPinRejected',
      data: { orderId: f.orderId, failedAttempts, lockedUntil },
    });
    await t
      .given()
      .when(guessing.send)
      .then(
        // Five attempts are recorded, the fifth sets the lock; the other five are refused by the lock, unrecorded.
        expectNewEvents(orderStream(f.orderId), [
          rejected(1, null),
          rejected(2, null),
          rejected(3, null),
          rejected(4, null),
          rejected(5, '2026-01-01T12:15:00.000Z'),
        ]),
      );
    const guesses = guessing.responses;
    expect(guesses.filter((g) => g.status === 400)).toHaveLength(5);
    expect(guesses.filter((g) => g.status === 409)).toHaveLength(5);
    for (const g of guesses) expect(g.body.error).toBe('DeliveryError');
    await t
      .given()
      .when((api) =>
        api.post(`/orders/${f.orderId}/deliver`, f.driver.token, { actualLiters: 2000, deliveryPin: f.pin }),
      )
      .then(
        expectError(409, 'DeliveryError'),
        expectResponse(409, { body: { lockedUntil: '2026-01-01T12:15:00.000Z' } }),
        expectNoNewEvents(orderStream(f.orderId)),
      );
    clock.advance(15 * 60_000);
    try {
      await t
        .given()
        .when((api) =>
          api.post(`/orders/${f.orderId}/deliver`, f.driver.token, { actualLiters: 2000, deliveryPin: f.pin }),
        )
        .then(
          expectResponse(200),
          expectNewEvents(orderStream(f.orderId), [{ type: 'OrderDelivered', data: { actualLiters: 2000 } }]),
        );
    } finally {
      clock.set('2026-01-01T12:00:00Z');
    }
  });
});
