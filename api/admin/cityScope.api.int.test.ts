import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin, signInDriver } from '../../tests/support/actors.js';
import {
  expectError,
  expectResponse,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../tests/support/apiSpecification.js';
import { confirmedOrder } from '../../tests/support/orderFlows.js';

const VALENCIA = 3;

/**
 * Admin reads are scoped to the admin's cities (docs/decisions/0046-money-risk-limits.md): an order, its
 * history and its payment like customers and reports (404 OrderNotFound, as for an unknown order), and the
 * drivers list and detail by the driver's city, super admins limited to cities included.
 */
describe('admin city scoping of orders and drivers', () => {
  let api: ApiUnderTest;
  beforeAll(async () => {
    api = await startApiUnderTest({ clock: new ManualClock(), env: { OFFICIAL_RATE_VES: '36.5' } });
  });
  afterAll(async () => {
    await api?.stop();
  });

  it('answers an admin of another city 404 OrderNotFound on the order, its history and its payment', async () => {
    const f = await confirmedOrder(api); // in Caracas
    const elsewhere = await signInAdmin(api, { superAdmin: false, cityIds: [VALENCIA] });
    for (const path of [`/orders/${f.orderId}`, `/admin/orders/${f.orderId}/history`, `/orders/${f.orderId}/payment`])
      await api
        .given()
        .when((r) => r.get(path, elsewhere.token))
        .then(expectError(404, 'OrderNotFound'));

    const local = await signInAdmin(api, { superAdmin: false, cityIds: [1] });
    await api
      .given()
      .when((r) => r.get(`/orders/${f.orderId}`, local.token))
      .then(expectResponse(200, { body: { order: { id: f.orderId } } }));
    await api
      .given()
      .when((r) => r.get(`/admin/orders/${f.orderId}/history`, local.token))
      .then(expectResponse(200, { body: { order_id: f.orderId } }));
  });

  it('scopes the drivers list and detail by the driver’s city, for a city-limited super admin too', async () => {
    const caracas = await signInDriver(api, { cityId: 1 });
    const valencia = await signInDriver(api, { cityId: VALENCIA });
    const limited = await signInAdmin(api, { superAdmin: true, cityIds: [VALENCIA], allCities: false });
    const list = await api.request('GET', '/api/v1/admin/drivers?limit=100', { token: limited.token });
    const ids = list.body.items.map((d: { id: number }) => d.id);
    expect(ids).toContain(valencia.driverId);
    expect(ids).not.toContain(caracas.driverId);
    await api
      .given()
      .when((r) => r.get(`/admin/drivers/${caracas.driverId}`, limited.token))
      .then(expectError(404, 'DriverNotFound'));
    const root = await signInAdmin(api);
    const all = await api.request('GET', '/api/v1/admin/drivers?limit=100', { token: root.token });
    expect(all.body.items.map((d: { id: number }) => d.id)).toEqual(
      expect.arrayContaining([caracas.driverId, valencia.driverId]),
    );
  });
});
