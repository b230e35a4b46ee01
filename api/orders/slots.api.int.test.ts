import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { customerSlot, driverSlot } from '../../domain/order/slots.js';
import { orderStream } from '../../domain/order/events.js';
import { ManualClock } from '../../infra/clock.js';
import { signInClient } from '../../tests/support/actors.js';
import {
  existingStream,
  expectError,
  expectNewEvents,
  expectNoNewEvents,
  expectResponse,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../tests/support/apiSpecification.js';
import { arrive, call, confirmedOrder, near, onlineDriver, orderBody } from '../../tests/support/orderFlows.js';

/**
 * One active order per customer and per driver: each has a slot stream naming the order that holds it,
 * and whether that order still holds it is read from the order's own stream. A slot is taken in the same
 * append as its order's command, so a slot naming an order that was never stored holds nothing.
 */
describe('order slots', () => {
  const START = '2026-01-01T12:00:00Z';
  const clock = new ManualClock(START);
  let t: ApiUnderTest;
  let api: ReturnType<typeof call>;
  beforeAll(async () => {
    t = await startApiUnderTest({ clock, env: { OFFICIAL_RATE_VES: '36.5' } });
    api = call(t);
  });
  afterAll(async () => {
    await t?.stop();
  });
  afterEach(() => clock.set(START));

  const taken = (orderId: number) => ({ type: 'OrderSlotTaken', data: { orderId, at: clock.now().toISOString() } });
  const driverBusy = expectError(409, 'Conflict');
  /** An open order of a new client with `driver`'s bid on it. */
  const bidOf = async (driver: Awaited<ReturnType<typeof onlineDriver>>, body = orderBody()) => {
    const client = await signInClient(t);
    const orderId: number = (await api.post('/orders', client.token, body)).body.order.id;
    const bid = await api.post(`/orders/${orderId}/accept`, driver.token, {});
    expect(bid.status).toBe(201);
    return { client, orderId, offerId: bid.body.offer.id as number };
  };
  const acceptOf = (o: { client: { token: string }; offerId: number }) => (a: ReturnType<typeof call>) =>
    a.post(`/orders/offers/${o.offerId}/accept`, o.client.token);

  it('a driver is held by their order while it waits for payment, is confirmed, under way or arrived', async () => {
    const driver = await onlineDriver(t);
    const online = await bidOf(driver, orderBody({ paymentMethod: 'EXCHANGE_PAY', litersRequested: 1000 }));
    await t
      .given()
      .when(acceptOf(online))
      .then(
        expectResponse(200, { body: { order: { status: 'WAITING_FOR_PAYMENT' } } }),
        expectNewEvents(driverSlot(driver.driverId), [taken(online.orderId)]),
      );
    const other = await bidOf(driver, orderBody({ litersRequested: 1000 }));
    await t
      .given()
      .when(acceptOf(other))
      .then(driverBusy, expectNoNewEvents(driverSlot(driver.driverId)), expectNoNewEvents(orderStream(other.orderId)));

    const f = await confirmedOrder(t);
    const next = await bidOf(f.driver);
    for (const step of ['CONFIRMED', 'IN_PROGRESS', 'ARRIVED']) {
      if (step === 'IN_PROGRESS')
        expect((await api.post(`/orders/${f.orderId}/start`, f.driver.token)).status).toBe(200);
      if (step === 'ARRIVED')
        expect((await api.post(`/orders/${f.orderId}/arrived`, f.driver.token, near(0.001))).status).toBe(200);
      await t
        .given()
        .when(acceptOf(next))
        .then(driverBusy, expectNoNewEvents(driverSlot(f.driver.driverId)));
    }
    expect(
      (await api.post(`/orders/${f.orderId}/deliver`, f.driver.token, { actualLiters: 2000, deliveryPin: f.pin }))
        .status,
    ).toBe(200);
    await t
      .given()
      .when(acceptOf(next))
      .then(expectResponse(200), expectNewEvents(driverSlot(f.driver.driverId), [taken(next.orderId)]));
  });

  it('a cancelled order frees its driver', async () => {
    const f = await confirmedOrder(t);
    const next = await bidOf(f.driver);
    expect((await api.post(`/orders/${f.orderId}/cancel`, f.client.token, {})).status).toBe(200);
    await t
      .given()
      .when(acceptOf(next))
      .then(expectResponse(200), expectNewEvents(driverSlot(f.driver.driverId), [taken(next.orderId)]));
  });

  it('a slot naming an order assigned to another driver, or one still open, is free', async () => {
    const f = await confirmedOrder(t);
    const driver = await onlineDriver(t);
    const mine = await bidOf(driver);
    await t
      .given(existingStream(driverSlot(driver.driverId), [taken(f.orderId)]))
      .when(acceptOf(mine))
      .then(expectResponse(200), expectNewEvents(driverSlot(driver.driverId), [taken(mine.orderId)]));

    const open = await signInClient(t);
    const openOrder: number = (await api.post('/orders', open.token, orderBody())).body.order.id;
    const other = await onlineDriver(t);
    const wanted = await bidOf(other);
    await t
      .given(existingStream(driverSlot(other.driverId), [taken(openOrder)]))
      .when(acceptOf(wanted))
      .then(expectResponse(200), expectNewEvents(driverSlot(other.driverId), [taken(wanted.orderId)]));
  });

  it('a driver slot naming an order that was never stored is free at once', async () => {
    const driver = await onlineDriver(t);
    const o = await bidOf(driver);
    await t
      .given(existingStream(driverSlot(driver.driverId), [taken(999_999)]))
      .when(acceptOf(o))
      .then(expectResponse(200), expectNewEvents(driverSlot(driver.driverId), [taken(o.orderId)]));
  });

  it('a customer slot naming an order that was never stored is free at once', async () => {
    const client = await signInClient(t);
    const create = (a: ReturnType<typeof call>) => a.post('/orders', client.token, orderBody());
    await t
      .given(existingStream(customerSlot(client.user.id), [taken(999_998)]))
      .when(create)
      .then(expectResponse(201), async ({ response, newEventsOf }) =>
        expect(await newEventsOf(customerSlot(client.user.id))).toEqual([taken(response.body.order.id)]),
      );
  });

  it('a customer is held by their order while it is under way, and free once it is delivered', async () => {
    const f = await confirmedOrder(t);
    const again = (a: ReturnType<typeof call>) => a.post('/orders', f.client.token, orderBody());
    await t
      .given()
      .when(again)
      .then(expectError(409, 'ActiveOrderExists'), expectNoNewEvents(customerSlot(f.client.user.id)));
    await arrive(t, f);
    await t.given().when(again).then(expectError(409, 'ActiveOrderExists'));
    expect(
      (await api.post(`/orders/${f.orderId}/deliver`, f.driver.token, { actualLiters: 2000, deliveryPin: f.pin }))
        .status,
    ).toBe(200);
    const created = await t.given().when(again).then(expectResponse(201));
    await t
      .given()
      .when((a) => a.get('/orders/active', f.client.token))
      .then(expectResponse(200, { body: { order: { id: created.body.order.id } } }));
  });
});
