import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderStream } from '../../domain/order/events.js';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin, signInClient } from '../../tests/support/actors.js';
import {
  expectError,
  expectNewEvents,
  expectNoNewEvents,
  expectNothingAppended,
  expectResponse,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../tests/support/apiSpecification.js';
import { call, confirmedOrder, near, onlineDriver, orderBody } from '../../tests/support/orderFlows.js';
import type { TestResponse } from '../../tests/support/testService.js';

const streamOfOrder = (r: TestResponse) => orderStream(r.body.order.id);

describe('orders: bad input, wrong states and who may do what', () => {
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

  it('answers 422 naming every bad field of POST /orders, and writes nothing', async () => {
    const client = await signInClient(t);
    const bad = await t
      .given()
      .when((api) =>
        api.post('/orders', client.token, {
          latitude: 91,
          longitude: -181,
          address: 'ab',
          addressReference: 'x'.repeat(256),
          litersRequested: 50_001,
          basePrice: 0,
          waterType: 'SALTY',
          paymentMethod: '',
          paymentFormId: -1,
          notes: 'n'.repeat(501),
          accessInstructions: 'a'.repeat(501),
          billingProfileId: 'one',
        }),
      )
      .then(expectError(422, 'ValidationError'), expectNothingAppended);
    expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual(
      [
        'accessInstructions',
        'address',
        'addressReference',
        'basePrice',
        'billingProfileId',
        'latitude',
        'litersRequested',
        'longitude',
        'notes',
        'paymentFormId',
        'paymentMethod',
        'waterType',
      ].sort(),
    );
    const missing = await t
      .given()
      .when((api) => api.post('/orders', client.token, {}))
      .then(expectError(422, 'ValidationError'), expectNothingAppended);
    expect(Object.keys(missing.body.details.fieldErrors).sort()).toEqual([
      'address',
      'basePrice',
      'latitude',
      'litersRequested',
      'longitude',
    ]);
    for (const [field, value] of [
      ['basePrice', 100_000.01],
      ['basePrice', 10.001],
      ['litersRequested', 1.5],
      ['litersRequested', 0],
    ] as const) {
      const r = await t
        .given()
        .when((api) => api.post('/orders', client.token, orderBody({ [field]: value })))
        .then(expectError(422, 'ValidationError'), expectNothingAppended);
      expect(Object.keys(r.body.details.fieldErrors)).toEqual([field]);
    }
    for (const [over, field] of [
      [{ paymentMethod: 'BITCOIN' }, 'paymentMethod'],
      [{ paymentMethod: 'PAGO_MOVIL' }, 'paymentMethod'], // inactive
      [{ paymentMethod: 'PAYMENT_FORM' }, 'paymentFormId'], // no form
      [{ paymentMethod: 'PAYMENT_FORM', paymentFormId: 999 }, 'paymentFormId'], // unknown form
      [{ billingProfileId: 999 }, 'billingProfileId'], // not the client's profile
    ] as const) {
      const r = await t
        .given()
        .when((api) => api.post('/orders', client.token, orderBody(over)))
        .then(expectError(422, 'ValidationError'), expectNothingAppended);
      expect(r.body.details.fieldErrors).toHaveProperty(field);
    }
    await t
      .given()
      .when(() => t.request('POST', '/api/v1/orders', { token: client.token, raw: '{"latitude": ' }))
      .then(expectResponse(422), expectNothingAppended);
    expect((await api.get('/orders/active', client.token)).body.order).toBeNull();
  });

  it('snapshots the client’s default billing profile; a chosen profile must be the client’s own', async () => {
    const client = await signInClient(t);
    const other = await signInClient(t);
    const profile = {
      entityType: 'V',
      idNumber: '12345678',
      name: 'Ana Pérez',
      address: 'Calle 1, Chacao',
      phone: '+584121234567',
      isDefault: true,
    };
    const created = await api.post('/billing-profiles', client.token, profile);
    expect(created.status).toBe(201);
    await t
      .given()
      .when((api) => api.post('/orders', other.token, orderBody({ billingProfileId: created.body.profile.id })))
      .then(expectError(422, 'ValidationError'), expectNothingAppended);
    const billing = {
      entityType: 'V',
      idNumber: '12345678',
      name: 'Ana Pérez',
      address: 'Calle 1, Chacao',
      phone: '+584121234567',
    };
    const order = await t
      .given()
      .when((api) => api.post('/orders', client.token, orderBody()))
      .then(
        expectResponse(201),
        expectNewEvents(streamOfOrder, [{ type: 'OrderCreated', data: { clientId: client.user.id, billing } }]),
      );
    // Which roles see the snapshot: api/orders/views.int.test.ts.
    expect(order.body.order.billing).toEqual({
      entity_type: 'V',
      id_number: '12345678',
      name: 'Ana Pérez',
      address: 'Calle 1, Chacao',
      phone: '+584121234567',
    });
  });

  it('keeps orders private: strangers get what an unknown id gets; parties without the right get 403', async () => {
    const f = await confirmedOrder(t);
    const strangerClient = await signInClient(t);
    const strangerDriver = await onlineDriver(t);
    const loser = await onlineDriver(t);
    // A second order on which `loser` bid and lost.
    const lostClient = await signInClient(t);
    const lostOrder = (await api.post('/orders', lostClient.token, orderBody())).body.order.id;
    await api.post(`/orders/${lostOrder}/accept`, loser.token, {});
    const winner = await onlineDriver(t);
    const win = await api.post(`/orders/${lostOrder}/accept`, winner.token, {});
    await api.post(`/orders/offers/${win.body.offer.id}/accept`, lostClient.token);

    for (const id of [f.orderId, 999_999]) {
      for (const token of [strangerClient.token, strangerDriver.token]) {
        const r = await api.get(`/orders/${id}`, token);
        expect(r.status).toBe(404);
        expect(r.body.error).toBe('OrderNotFound');
      }
      expect((await api.get(`/orders/${id}/tracking`, strangerClient.token)).status).toBe(404);
      expect((await api.get(`/orders/${id}/receipt`, strangerClient.token)).status).toBe(404);
      // A stranger's write is refused as for an unknown order, and writes nothing.
      await t
        .given()
        .when((api) =>
          api.patch(`/orders/${id}/payment-method`, strangerClient.token, { paymentMethod: 'EXCHANGE_PAY' }),
        )
        .then(expectError(404, 'OrderNotFound'), expectNothingAppended);
      await t
        .given()
        .when((api) => api.post(`/orders/${id}/cancel`, strangerClient.token, {}))
        .then(expectError(404, 'CancelError'), expectNothingAppended);
      for (const path of ['start', 'arrived', 'location']) {
        await t
          .given()
          .when((api) => api.post(`/orders/${id}/${path}`, strangerDriver.token, path === 'location' ? near(0) : {}))
          .then(expectError(404, 'OrderNotFound'), expectNothingAppended);
      }
      await t
        .given()
        .when((api) =>
          api.post(`/orders/${id}/deliver`, strangerDriver.token, { actualLiters: 10, deliveryPin: '1234' }),
        )
        .then(expectResponse(404), expectNothingAppended);
    }
    expect((await api.get('/orders/abc', strangerClient.token)).status).toBe(404);

    // The driver who bid and lost knows the order exists: 403 on what is not theirs.
    expect((await api.get(`/orders/${lostOrder}`, loser.token)).status).toBe(403);
    await t
      .given()
      .when((api) => api.post(`/orders/${lostOrder}/start`, loser.token))
      .then(expectError(403, 'Forbidden'), expectNothingAppended);
    for (const [path, body] of [
      ['location', near(0)],
      ['arrived', {}],
      ['deliver', { actualLiters: 10, deliveryPin: '1234' }],
    ] as const) {
      await t
        .given()
        .when((api) => api.post(`/orders/${lostOrder}/${path}`, loser.token, body))
        .then(expectResponse(403), expectNothingAppended);
    }
    await t
      .given()
      .when((api) => api.post(`/orders/${lostOrder}/cancel`, loser.token, {}))
      .then(expectError(403, 'CancelError'), expectNothingAppended);

    // Role guards: 401 without a token, 403 for the wrong role.
    expect((await api.get(`/orders/${f.orderId}`)).status).toBe(401);
    await t
      .given()
      .when((api) => api.post('/orders', f.driver.token, orderBody()))
      .then(expectResponse(403), expectNothingAppended);
    expect((await api.get(`/orders/${f.orderId}/tracking`, f.driver.token)).status).toBe(403);
    await t
      .given()
      .when((api) => api.post(`/orders/${f.orderId}/start`, f.client.token))
      .then(expectResponse(403), expectNothingAppended);
  });

  it('answers wrong states: start, location, arrived, tracking, deliver, receipt', async () => {
    const f = await confirmedOrder(t);
    const tracking = await api.get(`/orders/${f.orderId}/tracking`, f.client.token);
    expect(tracking.status).toBe(200);
    expect(tracking.body.driver).toMatchObject({ id: f.driver.driverId });
    const events = orderStream(f.orderId);
    await t
      .given()
      .when((api) => api.post(`/orders/${f.orderId}/location`, f.driver.token, near(0.01)))
      .then(expectError(409, 'WrongStatus'), expectNoNewEvents(events));
    await t
      .given()
      .when((api) => api.post(`/orders/${f.orderId}/arrived`, f.driver.token, {}))
      .then(expectError(409, 'WrongStatus'), expectNoNewEvents(events));
    expect((await api.get(`/orders/${f.orderId}/receipt`, f.client.token)).body.error).toBe('OrderNotDelivered');
    await t
      .given()
      .when((api) => api.post(`/orders/${f.orderId}/start`, f.driver.token))
      .then(expectResponse(200), expectNewEvents(events, [{ type: 'TripStarted', data: { orderId: f.orderId } }]));
    await t
      .given()
      .when((api) => api.post(`/orders/${f.orderId}/start`, f.driver.token))
      .then(expectError(409, 'Conflict'), expectNoNewEvents(events));
    await t
      .given()
      .when((api) => api.post(`/orders/${f.orderId}/arrived`, f.driver.token, {}))
      .then(expectError(409, 'NoLocation'), expectNoNewEvents(events));
    clock.advance(60_000); // 1 km from its last position in a minute: a plausible drive
    await t
      .given()
      .when((api) => api.post(`/orders/${f.orderId}/location`, f.driver.token, near(0.001)))
      .then(expectResponse(204), expectNewEvents(events, [{ type: 'DriverLocationRecorded' }]));
    clock.advance(6 * 60_000);
    try {
      // The last position is too old to arrive from.
      await t
        .given()
        .when((api) => api.post(`/orders/${f.orderId}/arrived`, f.driver.token, {}))
        .then(expectError(409, 'NoLocation'), expectNoNewEvents(events));
    } finally {
      clock.set('2026-01-01T12:00:00Z');
    }
    const badBody = await t
      .given()
      .when((api) => api.post(`/orders/${f.orderId}/location`, f.driver.token, { latitude: 91 }))
      .then(expectError(422, 'ValidationError'), expectNothingAppended);
    expect(Object.keys(badBody.body.details.fieldErrors).sort()).toEqual(['latitude', 'longitude']);
    await t
      .given()
      .when((api) => api.post(`/orders/${f.orderId}/arrived`, f.driver.token, { latitude: 10 }))
      .then(expectResponse(422), expectNothingAppended);
    const badDeliver = await t
      .given()
      .when((api) => api.post(`/orders/${f.orderId}/deliver`, f.driver.token, { actualLiters: 0, deliveryPin: '12a4' }))
      .then(expectError(422, 'ValidationError'), expectNothingAppended);
    expect(Object.keys(badDeliver.body.details.fieldErrors).sort()).toEqual(['actualLiters', 'deliveryPin']);

    const open = await signInClient(t);
    const orderId = (await api.post('/orders', open.token, orderBody())).body.order.id;
    const noTracking = await api.get(`/orders/${orderId}/tracking`, open.token);
    expect(noTracking.status).toBe(409);
    expect(noTracking.body.error).toBe('NoTracking');
  });

  it('changes the payment method while it may, re-pricing; locks it afterwards', async () => {
    const client = await signInClient(t);
    const orderId = (await api.post('/orders', client.token, orderBody({ basePrice: 10.05 }))).body.order.id;
    const online = await t
      .given()
      .when((api) => api.patch(`/orders/${orderId}/payment-method`, client.token, { paymentMethod: 'EXCHANGE_PAY' }))
      .then(
        expectResponse(200),
        expectNewEvents(orderStream(orderId), [
          {
            type: 'PaymentMethodChanged',
            data: { orderId, clientId: client.user.id, paymentMethod: 'EXCHANGE_PAY', status: 'BROADCASTING' },
          },
        ]),
      );
    expect(online.body.order).toMatchObject({
      payment_method: 'EXCHANGE_PAY',
      base_price_cents: 1005,
      client_solidary_cents: 10,
      client_pays_cents: 1015,
      client_charged_cents: 1015,
    });
    expect(
      (await api.patch(`/orders/${orderId}/payment-method`, client.token, { paymentMethod: 'BITCOIN' })).body.details
        .fieldErrors,
    ).toHaveProperty('paymentMethod');
    expect(
      (await api.patch(`/orders/${orderId}/payment-method`, client.token, {})).body.details.fieldErrors,
    ).toHaveProperty('paymentMethod');
    // paymentFormId is ignored unless the method is PAYMENT_FORM, where it must be a valid id.
    expect(
      (
        await api.patch(`/orders/${orderId}/payment-method`, client.token, {
          paymentMethod: 'EXCHANGE_PAY',
          paymentFormId: 'none',
        })
      ).status,
    ).toBe(200);
    const badForm = await api.patch(`/orders/${orderId}/payment-method`, client.token, {
      paymentMethod: 'PAYMENT_FORM',
      paymentFormId: 'none',
    });
    expect(badForm.status).toBe(422);
    expect(badForm.body.details.fieldErrors).toHaveProperty('paymentFormId');
    const driver = await onlineDriver(t);
    const bid = await api.post(`/orders/${orderId}/accept`, driver.token, {});
    expect((await api.post(`/orders/offers/${bid.body.offer.id}/accept`, client.token)).body.order.status).toBe(
      'WAITING_FOR_PAYMENT',
    );
    await t
      .given()
      .when((api) => api.patch(`/orders/${orderId}/payment-method`, client.token, { paymentMethod: 'CASH_USD' }))
      .then(expectError(409, 'PaymentMethodLocked'), expectNoNewEvents(orderStream(orderId)));
    await t
      .given()
      .when((api) => api.patch(`/orders/${orderId}/payment-method`, client.token, { paymentMethod: 'PAYPROV_DI' }))
      .then(
        expectResponse(200),
        expectNewEvents(orderStream(orderId), [
          { type: 'PaymentMethodChanged', data: { paymentMethod: 'PAYPROV_DI', status: 'WAITING_FOR_PAYMENT' } },
        ]),
      );

    const confirmed = await confirmedOrder(t);
    await t
      .given()
      .when((api) =>
        api.patch(`/orders/${confirmed.orderId}/payment-method`, confirmed.client.token, {
          paymentMethod: 'EXCHANGE_PAY',
        }),
      )
      .then(expectError(409, 'PaymentMethodLocked'), expectNoNewEvents(orderStream(confirmed.orderId)));
  });

  it('cancels by the client, the assigned driver or an admin, with the caller’s reason catalogue', async () => {
    const client = await signInClient(t);
    const orderId = (await api.post('/orders', client.token, orderBody())).body.order.id;
    const wrongCatalogue = await t
      .given()
      .when((api) => api.post(`/orders/${orderId}/cancel`, client.token, { reason_code: 'DRIVER_TOO_FAR' }))
      .then(expectError(422, 'ValidationError'), expectNothingAppended);
    expect(wrongCatalogue.body.details.fieldErrors).toHaveProperty('reason_code');
    expect(
      (await api.post(`/orders/${orderId}/cancel`, client.token, { reason: 'r'.repeat(281) })).body.details.fieldErrors,
    ).toHaveProperty('reason');
    const cancelled = await t
      .given()
      .when((api) =>
        api.post(`/orders/${orderId}/cancel`, client.token, {
          reason_code: 'CLIENT_CHANGED_MIND',
          reason: 'Ya no la necesito',
        }),
      )
      .then(
        expectResponse(200),
        expectNewEvents(orderStream(orderId), [
          {
            type: 'OrderCancelled',
            data: {
              orderId,
              clientId: client.user.id,
              cancelledByRole: 'CLIENT',
              cancelledById: client.user.id,
              reasonCode: 'CLIENT_CHANGED_MIND',
              reason: 'Ya no la necesito',
              previousStatus: 'BROADCASTING',
              driverId: null,
              refundDueCents: 0,
            },
          },
        ]),
      );
    expect(cancelled.body.order).toMatchObject({
      id: orderId,
      status: 'CANCELLED',
      cancellation: { by_role: 'CLIENT', reason_code: 'CLIENT_CHANGED_MIND', reason: 'Ya no la necesito' },
    });
    await t
      .given()
      .when((api) => api.post(`/orders/${orderId}/cancel`, client.token, {}))
      .then(expectError(409, 'CancelError'), expectNothingAppended);
    // The slot is free again.
    expect((await api.post('/orders', client.token, orderBody())).status).toBe(201);

    const f = await confirmedOrder(t);
    const byDriver = await t
      .given()
      .when((api) => api.post(`/orders/${f.orderId}/cancel`, f.driver.token, { reason_code: 'DRIVER_VEHICLE_ISSUE' }))
      .then(
        expectResponse(200),
        expectNewEvents(orderStream(f.orderId), [
          {
            type: 'OrderCancelled',
            data: {
              cancelledByRole: 'DRIVER',
              cancelledById: f.driver.driverId,
              reasonCode: 'DRIVER_VEHICLE_ISSUE',
              previousStatus: 'CONFIRMED',
              driverId: f.driver.driverId,
            },
          },
        ]),
      );
    expect(byDriver.body.order).toMatchObject({ status: 'CANCELLED' });
    expect(byDriver.body.order).not.toHaveProperty('client_pays_usd_x');
    expect(byDriver.body.order).toHaveProperty('driver_gross_usd');
    // The driver is free for the next order.
    expect((await api.get('/driver/orders', f.driver.token)).body.active).toBeNull();

    const g = await confirmedOrder(t);
    const admin = await signInAdmin(t);
    const byAdmin = await t
      .given()
      .when((api) => api.post(`/orders/${g.orderId}/cancel`, admin.token, { reason_code: 'ADMIN_SUPPORT' }))
      .then(
        expectResponse(200),
        expectNewEvents(orderStream(g.orderId), [
          {
            type: 'OrderCancelled',
            data: { cancelledByRole: 'ADMIN', reasonCode: 'ADMIN_SUPPORT', driverId: g.driver.driverId },
          },
        ]),
      );
    expect(byAdmin.body.order).toMatchObject({
      status: 'CANCELLED',
      solidary_fund_usd: 0,
      client_id: g.client.user.id,
    });
  });
});

describe('orders without an official exchange rate', () => {
  let t: ApiUnderTest;
  beforeAll(async () => {
    t = await startApiUnderTest({ clock: new ManualClock(), env: { DEVELOPMENT_RATE_VES: '0' } });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('answers 422 ExchangeRateUnavailable until an admin records a rate', async () => {
    const api = call(t);
    const client = await signInClient(t);
    await t
      .given()
      .when((api) => api.post('/orders', client.token, orderBody()))
      .then(expectError(422, 'ExchangeRateUnavailable'), expectNothingAppended);
    const admin = await signInAdmin(t);
    expect((await api.post('/admin/exchange-rates', admin.token, { currency: 'VES', rate: 40.25 })).status).toBe(201);
    const created = await t
      .given()
      .when((api) => api.post('/orders', client.token, orderBody()))
      .then(
        expectResponse(201),
        expectNewEvents(streamOfOrder, [{ type: 'OrderCreated', data: { officialRateCents: 4025 } }]),
      );
    expect((await api.get(`/orders/${created.body.order.id}`, admin.token)).body.order.official_rate_cents).toBe(4025);
  });
});
