import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderStream } from '../../domain/order/events.js';
import { paymentStream } from '../../domain/payment/events.js';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin, signInClient, signInDriver } from '../../tests/support/actors.js';
import {
  expectNewEvents,
  expectResponse,
  refused,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../tests/support/apiSpecification.js';
import { call, confirmedOrder, onlineDriver, orderBody } from '../../tests/support/orderFlows.js';

const VALENCIA = 3;

/**
 * Admin reads are scoped to the admin's cities (docs/decisions/0046-money-risk-limits.md): an order, its
 * history and its payment like customers and reports (404 OrderNotFound, as for an unknown order), the review
 * of manual payments by the order's city (the queue filters, approve and reject answer 404 NotFound as for an
 * unknown payment), and the drivers list and detail by the driver's city, super admins limited to cities included.
 * Which payments a city-limited admin's review queue lists needs the reports' read model, which only a started
 * service keeps: tests/api/payments.e2e.test.ts checks it.
 */
describe('admin city scoping of orders, payments and drivers', () => {
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
      await refused(api, (r) => r.get(path, elsewhere.token), 404, 'OrderNotFound');

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
    await refused(api, (r) => r.get(`/admin/drivers/${caracas.driverId}`, limited.token), 404, 'DriverNotFound');
    const root = await signInAdmin(api);
    const all = await api.request('GET', '/api/v1/admin/drivers?limit=100', { token: root.token });
    expect(all.body.items.map((d: { id: number }) => d.id)).toEqual(
      expect.arrayContaining([caracas.driverId, valencia.driverId]),
    );
  });

  /** A PAYMENT_FORM order in Caracas whose payment the client reported: it waits for an admin's review. */
  const reportedFormPayment = async () => {
    const api_ = call(api);
    const root = await signInAdmin(api);
    const forms = await api_.get('/payment-forms', root.token);
    const formId = forms.body.forms.find((f: { currency: string }) => f.currency === 'USD').id;
    const [client, driver] = [await signInClient(api), await onlineDriver(api)];
    const created = await api_.post(
      '/orders',
      client.token,
      orderBody({ paymentMethod: 'PAYMENT_FORM', paymentFormId: formId }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const offer = await api_.post(`/orders/${created.body.order.id}/accept`, driver.token, {});
    expect(offer.status, JSON.stringify(offer.body)).toBe(201);
    const chosen = await api_.post(`/orders/offers/${offer.body.offer.id}/accept`, client.token);
    expect(chosen.status, JSON.stringify(chosen.body)).toBe(200);
    const orderId = created.body.order.id as number;
    const values = [
      { index: 1, value: 'Ana Pérez' },
      { index: 2, value: 'ana@example.com' },
      { index: 3, value: `ZL-${orderId}0000` },
    ];
    const reported = await api_.post(`/orders/${orderId}/payment/form`, client.token, { values });
    expect(reported.status, JSON.stringify(reported.body)).toBe(200);
    return { orderId, paymentId: reported.body.payment.id as number };
  };

  it('answers another city’s approval or rejection 404 and decides nothing; a local admin approves', async () => {
    const { orderId, paymentId } = await reportedFormPayment(); // in Caracas
    const elsewhere = await signInAdmin(api, { superAdmin: false, cityIds: [VALENCIA] });
    const local = await signInAdmin(api, { superAdmin: false, cityIds: [1] });
    const reason = { reason: 'Transferencia verificada en el banco' };
    for (const action of ['approve', 'reject'])
      expect(
        await refused(api, (r) => r.post(`/admin/payments/${paymentId}/${action}`, elsewhere.token, reason), 404),
      ).toMatchObject({
        status: 404,
        body: { error: 'NotFound' },
      });
    expect(await refused(api, (r) => r.get(`/orders/${orderId}/payment`, elsewhere.token), 404)).toMatchObject({
      status: 404,
      body: { error: 'OrderNotFound' },
    });
    // Nothing was decided by the refused admin: the payment still waits, and the local admin approves it.
    expect(
      await api
        .given()
        .when((r) => r.post(`/admin/payments/${paymentId}/approve`, local.token, reason))
        .then(
          expectResponse(200),
          expectNewEvents(paymentStream(paymentId), [
            { type: 'PaymentConfirmed', data: { paymentId, orderId, by: 'admin', adminId: local.admin.id } },
          ]),
          expectNewEvents(orderStream(orderId), [{ type: 'OrderPaid', data: { orderId, paymentId } }]),
        ),
    ).toMatchObject({
      status: 200,
      body: { payment: { id: paymentId, status: 'CONFIRMED' } },
    });
  });
});
