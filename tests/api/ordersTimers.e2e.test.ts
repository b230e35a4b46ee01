import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin, signInClient } from '../support/actors.js';
import { call, CARACAS, onlineDriver, orderBody } from '../support/orderFlows.js';
import { startTestService, type TestService } from '../support/testService.js';

const MINUTE = 60_000;

describe('order timers and the driver feed', () => {
  const clock = new ManualClock();
  let t: TestService;
  let api: ReturnType<typeof call>;
  const tick = () => t.service.ctx.scheduler.tick();
  beforeAll(async () => {
    t = await startTestService({ clock, env: { OFFICIAL_RATE_VES: '36.5' } });
    api = call(t);
  });
  afterAll(async () => {
    await t?.stop();
  });
  beforeEach(() => {
    clock.set('2026-01-01T12:00:00Z');
  });

  it('expires an order still bidding at expires_at (30 minutes) and frees the customer', async () => {
    const client = await signInClient(t);
    const driver = await onlineDriver(t);
    const order = (await api.post('/orders', client.token, orderBody())).body.order;
    await api.post(`/orders/${order.id}/counter-offer`, driver.token, { driverGross: 24 });
    clock.advance(29 * MINUTE);
    await tick();
    // The counter-offer's own TTL (10 minutes) ran out first.
    expect((await api.get(`/orders/${order.id}`, client.token)).body.order.status).toBe('BROADCASTING');
    clock.advance(MINUTE);
    await tick();
    const expired = (await api.get(`/orders/${order.id}`, client.token)).body.order;
    expect(expired).toMatchObject({ status: 'EXPIRED', expired_at: '2026-01-01T12:30:00.000Z', offers: [] });
    expect((await api.get('/orders/active', client.token)).body.order).toBeNull();
    expect((await api.post('/orders', client.token, orderBody())).status).toBe(201);
  });

  it(
    'expires an offer after its TTL (10 minutes): the order ' +
      'is BROADCASTING again and the offer cannot be accepted',
    async () => {
      const client = await signInClient(t);
      const driver = await onlineDriver(t);
      const order = (await api.post('/orders', client.token, orderBody())).body.order;
      const bid = await api.post(`/orders/${order.id}/counter-offer`, driver.token, { driverGross: 24 });
      expect(bid.body.offer.expires_at).toBe('2026-01-01T12:10:00.000Z');
      clock.advance(10 * MINUTE);
      expect((await api.post(`/orders/offers/${bid.body.offer.id}/accept`, client.token)).status).toBe(409);
      await tick();
      expect((await api.get(`/orders/${order.id}`, client.token)).body.order).toMatchObject({
        status: 'BROADCASTING',
        offers: [],
      });
      const admin = await signInAdmin(t);
      const adminView = (await api.get(`/orders/${order.id}`, admin.token)).body.order;
      expect(adminView.offers[0]).toMatchObject({ id: bid.body.offer.id, status: 'EXPIRED' });
    },
  );

  it('expires an unpaid order when the payment window passes, releasing the driver and refunding credit', async () => {
    const client = await signInClient(t);
    const admin = await signInAdmin(t);
    await api.post(`/admin/customers/${client.user.id}/credit/adjust`, admin.token, {
      type: 'credit',
      amount: 5,
      reason: 'Compensación por demora',
    });
    const driver = await onlineDriver(t);
    const order = (await api.post('/orders', client.token, orderBody({ paymentMethod: 'EXCHANGE_PAY' }))).body.order;
    expect(order.promo_credit_usd).toBe(5);
    const bid = await api.post(`/orders/${order.id}/accept`, driver.token, {});
    const accepted = (await api.post(`/orders/offers/${bid.body.offer.id}/accept`, client.token)).body.order;
    expect(accepted).toMatchObject({
      status: 'WAITING_FOR_PAYMENT',
      payment_expires_at: '2026-01-01T12:30:00.000Z',
      client_charged_usd: 20.25,
    });
    expect(accepted).not.toHaveProperty('delivery_pin');
    expect((await api.get('/driver/orders', driver.token)).body.active).toMatchObject({ id: order.id });
    expect((await api.get('/credit/me', client.token)).body).toMatchObject({ anyUSD: 0, redeemedUSD: 5 });

    clock.advance(30 * MINUTE);
    await tick();
    expect((await api.get(`/orders/${order.id}`, client.token)).body.order.status).toBe('EXPIRED');
    expect((await api.get('/driver/orders', driver.token)).body.active).toBeNull();
    expect((await api.get('/credit/me', client.token)).body).toMatchObject({ anyUSD: 5, redeemedUSD: 0 });
    const history = await api.get(
      `/admin/customers/${client.user.id}/credit/transactions`,
      (await signInAdmin(t)).token,
    );
    expect(history.body.items[0]).toMatchObject({
      type: 'ORDER_REFUND',
      direction: 'CREDIT',
      amount_usd: 5,
      order_id: order.id,
    });
  });

  it('shows an online driver the biddable orders within 10 km of its position, nearest first', async () => {
    const near = await signInClient(t);
    const nearer = await signInClient(t);
    const far = await signInClient(t);
    const a = (await api.post('/orders', near.token, orderBody({ latitude: CARACAS.latitude + 0.05 }))).body.order.id;
    const b = (await api.post('/orders', nearer.token, orderBody())).body.order.id;
    const c = (await api.post('/orders', far.token, orderBody({ latitude: CARACAS.latitude + 0.2 }))).body.order.id;
    const driver = await onlineDriver(t, { lat: CARACAS.latitude, lng: CARACAS.longitude });
    const feed = await api.get('/driver/orders', driver.token);
    expect(feed.status).toBe(200);
    const ids = feed.body.available.map((o: { id: number }) => o.id);
    expect(ids.indexOf(b)).toBeLessThan(ids.indexOf(a));
    expect(ids).toContain(a);
    expect(ids).not.toContain(c);
    const item = feed.body.available.find((o: { id: number }) => o.id === a);
    expect(item.distance_km).toBeCloseTo(5.56, 1);
    expect(item).not.toHaveProperty('delivery_pin');
    expect(item).not.toHaveProperty('billing');

    expect((await api.post('/driver/online', driver.token, { online: false })).status).toBe(200);
    expect((await api.get('/driver/orders', driver.token)).body).toEqual({ available: [], active: null });
    expect((await api.get('/driver/orders', near.token)).status).toBe(403);
  });
});
