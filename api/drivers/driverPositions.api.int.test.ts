import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driverStream } from '../../domain/driver/events.js';
import { orderStream } from '../../domain/order/events.js';
import { ManualClock } from '../../infra/clock.js';
import { signInClient, signInDriver } from '../../tests/support/actors.js';
import {
  expectError,
  expectNewEvents,
  expectNoNewEvents,
  expectResponse,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../tests/support/apiSpecification.js';
import { CARACAS, confirmedOrder, near, onlineDriver, orderBody } from '../../tests/support/orderFlows.js';

const MARACAIBO = { latitude: 10.6427, longitude: -71.6125 };
const HOUR = 3_600_000;

/** About `km` north of `from`. */
const north = (from: { latitude: number; longitude: number }, km: number) => ({
  latitude: from.latitude + km / 111.195,
  longitude: from.longitude,
});

/**
 * Driver positions (docs/decisions/0088-a-distance-budget-for-driver-positions.md): each spends a distance budget
 * of DRIVER_POSITION_SLACK_KM (3) refilled at DRIVER_MAX_SPEED_KMH (150); 30 positions a minute at most, over
 * every route that takes one (the arrival's included); a first position lies in the driver's city; the feed
 * and the offer view measure from the last accepted fix.
 */
describe('plausible driver positions', () => {
  const clock = new ManualClock('2026-03-10T15:00:00Z');
  let api: ApiUnderTest;
  beforeAll(async () => {
    api = await startApiUnderTest({ clock, env: { OFFICIAL_RATE_VES: '36.5' } });
  });
  afterAll(async () => {
    await api?.stop();
  });

  it('refuses a jump to another city, which then neither feeds nor shows the orders there', async () => {
    const driver = await onlineDriver(api);
    const orderInMaracaibo = async (): Promise<number> => {
      const r = await api.request('POST', '/api/v1/orders', {
        token: (await signInClient(api)).token,
        body: orderBody({ ...MARACAIBO, address: 'Av. 5 de Julio, Maracaibo' }),
      });
      expect(r.status).toBe(201);
      return r.body.order.id;
    };
    const orderId = await orderInMaracaibo();

    await api
      .given()
      .when((r) => r.post('/driver/location', driver.token, MARACAIBO))
      .then(expectError(422, 'ValidationError', { fieldErrors: { latitude: [expect.stringContaining('150 km/h')] } }));
    await api
      .given()
      .when((r) => r.post('/driver/online', driver.token, { online: true, ...MARACAIBO }))
      .then(expectError(422, 'ValidationError'), expectNoNewEvents(driverStream(driver.driverId)));
    const feed = await api.request('GET', '/api/v1/driver/orders', { token: driver.token });
    expect(feed.body.available.map((o: { id: number }) => o.id)).not.toContain(orderId);
    await api
      .given()
      .when((r) => r.get(`/orders/${orderId}/offer`, driver.token))
      .then(expectError(404, 'OrderNotFound'));

    // About 520 km in four hours is 130 km/h: a drive, accepted.
    clock.advance(4 * HOUR);
    await api
      .given()
      .when((r) => r.post('/driver/location', driver.token, MARACAIBO))
      .then(expectResponse(204));
    const later = await orderInMaracaibo();
    await api
      .given()
      .when((r) => r.get(`/orders/${later}/offer`, driver.token))
      .then(expectResponse(200, { body: { id: later } }));
  });

  it('refuses an implausible live location of a trip and records nothing on the order', async () => {
    const f = await confirmedOrder(api);
    await api
      .given()
      .when((r) => r.post(`/orders/${f.orderId}/start`, f.driver.token))
      .then(expectResponse(200));
    await api
      .given()
      .when((r) => r.post(`/orders/${f.orderId}/location`, f.driver.token, MARACAIBO))
      .then(expectError(422, 'ValidationError'), expectNoNewEvents(orderStream(f.orderId)));
    clock.advance(60_000);
    await api
      .given()
      .when((r) => r.post(`/orders/${f.orderId}/location`, f.driver.token, near(0.005)))
      .then(expectResponse(204), expectNewEvents(orderStream(f.orderId), [{ type: 'DriverLocationRecorded' }]));
  });

  it('takes at most 30 positions a minute from one driver, then 429 Cooldown with Retry-After', async () => {
    const driver = await signInDriver(api, { lat: CARACAS.latitude, lng: CARACAS.longitude });
    for (let i = 0; i < 29; i++)
      expect(
        (await api.request('POST', '/api/v1/driver/location', { token: driver.token, body: CARACAS })).status,
      ).toBe(204);
    await api
      .given()
      .when((r) => r.post('/driver/online', driver.token, { online: true, ...CARACAS }))
      .then(expectResponse(429, { body: { error: 'Cooldown' } }), expectNoNewEvents(driverStream(driver.driverId)));
    const refused = await api.request('POST', '/api/v1/driver/location', { token: driver.token, body: CARACAS });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('believes one coarse fix that jumps 2.5 km at once, and refuses small jumps that add up beyond the speed', async () => {
    const driver = await onlineDriver(api);
    const start = { latitude: CARACAS.latitude + 0.01, longitude: CARACAS.longitude };
    await api
      .given()
      .when((r) => r.post('/driver/location', driver.token, north(start, 2.5)))
      .then(expectResponse(204));
    clock.advance(60_000); // refills 2.5 km: the budget is full again
    let at = north(start, 2.5);
    const answers: number[] = [];
    for (let i = 0; i < 6; i++) {
      clock.advance(10_000); // 1 km every 10 s is 360 km/h
      at = north(at, 1);
      answers.push((await api.request('POST', '/api/v1/driver/location', { token: driver.token, body: at })).status);
    }
    expect(answers).toEqual([204, 204, 204, 204, 204, 422]);
  });

  it("takes a driver's first position only in its city", async () => {
    const driver = await signInDriver(api, { cityId: 1 });
    await api
      .given()
      .when((r) => r.post('/driver/location', driver.token, MARACAIBO))
      .then(expectError(422, 'ValidationError', { fieldErrors: { latitude: [expect.stringContaining('city')] } }));
    await api
      .given()
      .when((r) => r.post('/driver/online', driver.token, { online: true, ...MARACAIBO }))
      .then(expectError(422, 'ValidationError'), expectNoNewEvents(driverStream(driver.driverId)));
    await api
      .given()
      .when((r) => r.post('/driver/location', driver.token, north(CARACAS, 1)))
      .then(expectResponse(204));
  });

  it('checks the position sent with the arrival like any other: distance budget and rate', async () => {
    const f = await confirmedOrder(api); // its driver 1.1 km north of the order, with a full budget
    await api
      .given()
      .when((r) => r.post(`/orders/${f.orderId}/start`, f.driver.token))
      .then(expectResponse(200));
    const farther = north(CARACAS, 2.5);
    await api
      .given()
      .when((r) => r.post(`/orders/${f.orderId}/location`, f.driver.token, farther))
      .then(expectResponse(204)); // 1.4 km spent: 1.6 km left
    await api
      .given()
      .when((r) => r.post(`/orders/${f.orderId}/arrived`, f.driver.token, CARACAS))
      .then(expectError(422, 'ValidationError'), expectNoNewEvents(orderStream(f.orderId)));
    clock.advance(60_000);
    for (let i = 0; i < 30; i++)
      await api.request('POST', '/api/v1/driver/location', { token: f.driver.token, body: farther });
    await api
      .given()
      .when((r) => r.post(`/orders/${f.orderId}/arrived`, f.driver.token, CARACAS))
      .then(expectResponse(429, { body: { error: 'Cooldown' } }), expectNoNewEvents(orderStream(f.orderId)));
  });

  it('counts against the rate only the positions recorded: refused arrivals spend none of it', async () => {
    const f = await confirmedOrder(api); // its driver 1.1 km north of the order
    await api
      .given()
      .when((r) => r.post(`/orders/${f.orderId}/start`, f.driver.token))
      .then(expectResponse(200));
    const where = north(CARACAS, 1.1);
    for (let i = 0; i < 31; i++)
      await api
        .given()
        .when((r) => r.post(`/orders/${f.orderId}/arrived`, f.driver.token, where))
        .then(expectError(409, 'TooFarFromDestination'), expectNoNewEvents(orderStream(f.orderId)));
    await api
      .given()
      .when((r) => r.post('/driver/location', f.driver.token, where))
      .then(expectResponse(204));
  });
});
