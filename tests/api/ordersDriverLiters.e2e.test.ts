import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/testService.js';
import { arrive, call, confirmedOrder, onlineDriver } from '../support/orderFlows.js';

describe("the driver block of /me follows the driver's orders", () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: { OFFICIAL_RATE_VES: '36.5' } });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('accepting commits liters (remainingLiters), delivering draws the tank and counts a completed order', async () => {
    const api = call(t);
    const driver = await onlineDriver(t, { liters: 5000 });
    const before = (await api.get('/me', driver.token)).body.user.driver;
    expect(before).toMatchObject({ availableLiters: 5000, remainingLiters: 5000, completedOrders: 0 });

    const flow = await confirmedOrder(t, { driver, body: { litersRequested: 1200 } });
    expect((await api.get('/me', driver.token)).body.user.driver).toMatchObject({ availableLiters: 5000, remainingLiters: 3800 });

    await arrive(t, flow);
    const delivered = await api.post(`/orders/${flow.orderId}/deliver`, driver.token, { actualLiters: 1100, deliveryPin: flow.pin });
    expect(delivered.status).toBe(200);
    await t.service.ctx.settle(await t.service.ctx.store.headPosition());
    expect((await api.get('/me', driver.token)).body.user.driver).toMatchObject({ availableLiters: 3900, remainingLiters: 3900, completedOrders: 1 });
  });

  it('a cancelled accepted order gives its liters back', async () => {
    const api = call(t);
    const driver = await onlineDriver(t, { liters: 3000 });
    const flow = await confirmedOrder(t, { driver, body: { litersRequested: 1000 } });
    expect((await api.get('/me', driver.token)).body.user.driver.remainingLiters).toBe(2000);
    expect((await api.post(`/orders/${flow.orderId}/cancel`, flow.client.token, { reason_code: 'CLIENT_CHANGED_MIND' })).status).toBe(200);
    expect((await api.get('/me', driver.token)).body.user.driver.remainingLiters).toBe(3000);
  });
});
