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
import { onlineDriver, orderBody } from '../../tests/support/orderFlows.js';
import type { TestResponse } from '../../tests/support/testService.js';

const MARACAIBO = { lat: 10.6427, lng: -71.6125 };
const GATE = 'Portón azul, código 4455';

/**
 * What an order shows to whom (docs/decisions/0046-money-risk-limits.md): no delivery PIN in an event
 * history, access instructions only for the assigned driver once the order is confirmed, and no bid where
 * the offer view would answer 404.
 */
describe('what an order exposes', () => {
  let api: ApiUnderTest;
  beforeAll(async () => {
    api = await startApiUnderTest({ clock: new ManualClock(), env: { OFFICIAL_RATE_VES: '36.5' } });
  });
  afterAll(async () => {
    await api?.stop();
  });

  const orderOf = (r: TestResponse) => orderStream(r.body.order.id);
  /** A client's order with access instructions: its OrderCreated records them. */
  const newOrder = async () => {
    const client = await signInClient(api);
    const r = await api
      .given()
      .when((r) => r.post('/orders', client.token, orderBody({ accessInstructions: GATE })))
      .then(
        expectResponse(201),
        expectNewEvents(orderOf, [
          { type: 'OrderCreated', data: { clientId: client.user.id, accessInstructions: GATE } },
        ]),
      );
    return { client, orderId: r.body.order.id as number, pin: r.body.order.delivery_pin as string };
  };

  it('keeps the delivery PIN out of the order’s event history', async () => {
    const { orderId } = await newOrder();
    const root = await signInAdmin(api);
    const history = await api
      .given()
      .when((r) => r.get(`/admin/orders/${orderId}/history`, root.token))
      .then(expectResponse(200, { body: { events: [{ type: 'OrderCreated' }] } }));
    for (const e of history.body.events) expect(e.data).not.toHaveProperty('deliveryPin');
  });

  it('shows access instructions to the assigned driver of a confirmed order only, not to bidders', async () => {
    const { client, orderId } = await newOrder();
    const driver = await onlineDriver(api);
    await api
      .given()
      .when((r) => r.get(`/orders/${orderId}/offer`, driver.token))
      .then(expectResponse(200, { body: { id: orderId, access_instructions: null } }));
    const bid = await api
      .given()
      .when((r) => r.post(`/orders/${orderId}/accept`, driver.token, {}))
      .then(
        expectResponse(201),
        expectNewEvents(orderStream(orderId), [{ type: 'OfferPlaced', data: { orderId, driverId: driver.driverId } }]),
      );
    const accepted = await api
      .given()
      .when((r) => r.post(`/orders/offers/${bid.body.offer.id}/accept`, client.token))
      .then(
        expectResponse(200),
        expectNewEvents(orderStream(orderId), [
          {
            type: 'OfferAccepted',
            data: { offerId: bid.body.offer.id, driverId: driver.driverId, status: 'CONFIRMED' },
          },
        ]),
      );
    expect(accepted.body.order).toMatchObject({ status: 'CONFIRMED', access_instructions: GATE });
    await api
      .given()
      .when((r) => r.get(`/orders/${orderId}`, driver.token))
      .then(expectResponse(200, { body: { order: { access_instructions: GATE } } }));
  });

  it('refuses a bid from beyond the offer view’s radius as an unknown order, and records nothing', async () => {
    const { orderId } = await newOrder(); // in Caracas
    const far = await onlineDriver(api, { cityId: 2, lat: MARACAIBO.lat, lng: MARACAIBO.lng });
    for (const [path, body] of [
      [`/orders/${orderId}/accept`, {}],
      [`/orders/${orderId}/counter-offer`, { driverGross: 30 }],
    ] as const)
      await api
        .given()
        .when((r) => r.post(path, far.token, body))
        .then(expectError(404, 'OrderNotFound'), expectNoNewEvents(orderStream(orderId)));
  });
});
