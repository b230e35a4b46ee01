import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin, signInClient } from '../../tests/support/actors.js';
import { startApiUnderTest } from '../../tests/support/apiSpecification.js';
import { call, confirmedOrder, near, onlineDriver, orderBody } from '../../tests/support/orderFlows.js';
import type { TestService } from '../../tests/support/testService.js';

describe('orders: bad input, wrong states and who may do what', () => {
  const clock = new ManualClock();
  let t: TestService;
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
    const bad = await api.post('/orders', client.token, {
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
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toBe('ValidationError');
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
    const missing = await api.post('/orders', client.token, {});
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
      const r = await api.post('/orders', client.token, orderBody({ [field]: value }));
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.details.fieldErrors)).toEqual([field]);
    }
    const method = await api.post('/orders', client.token, orderBody({ paymentMethod: 'BITCOIN' }));
    expect(method.body.details.fieldErrors).toHaveProperty('paymentMethod');
    const inactive = await api.post('/orders', client.token, orderBody({ paymentMethod: 'PAGO_MOVIL' }));
    expect(inactive.body.details.fieldErrors).toHaveProperty('paymentMethod');
    const noForm = await api.post('/orders', client.token, orderBody({ paymentMethod: 'PAYMENT_FORM' }));
    expect(noForm.body.details.fieldErrors).toHaveProperty('paymentFormId');
    const unknownForm = await api.post(
      '/orders',
      client.token,
      orderBody({ paymentMethod: 'PAYMENT_FORM', paymentFormId: 999 }),
    );
    expect(unknownForm.body.details.fieldErrors).toHaveProperty('paymentFormId');
    const foreignProfile = await api.post('/orders', client.token, orderBody({ billingProfileId: 999 }));
    expect(foreignProfile.status).toBe(422);
    expect(foreignProfile.body.details.fieldErrors).toHaveProperty('billingProfileId');
    const malformed = await t.request('POST', '/api/v1/orders', { token: client.token, raw: '{"latitude": ' });
    expect(malformed.status).toBe(422);
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
    const foreign = await api.post('/orders', other.token, orderBody({ billingProfileId: created.body.profile.id }));
    expect(foreign.status).toBe(422);
    const order = await api.post('/orders', client.token, orderBody());
    expect(order.status).toBe(201);
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
      expect(
        (await api.patch(`/orders/${id}/payment-method`, strangerClient.token, { paymentMethod: 'EXCHANGE_PAY' })).body
          .error,
      ).toBe('OrderNotFound');
      const cancel = await api.post(`/orders/${id}/cancel`, strangerClient.token, {});
      expect(cancel.status).toBe(404);
      expect(cancel.body.error).toBe('CancelError');
      for (const path of ['start', 'arrived', 'location']) {
        const r = await api.post(`/orders/${id}/${path}`, strangerDriver.token, path === 'location' ? near(0) : {});
        expect(r.status).toBe(404);
        expect(r.body.error).toBe('OrderNotFound');
      }
      expect(
        (await api.post(`/orders/${id}/deliver`, strangerDriver.token, { actualLiters: 10, deliveryPin: '1234' }))
          .status,
      ).toBe(404);
    }
    expect((await api.get('/orders/abc', strangerClient.token)).status).toBe(404);

    // The driver who bid and lost knows the order exists: 403 on what is not theirs.
    expect((await api.get(`/orders/${lostOrder}`, loser.token)).status).toBe(403);
    expect((await api.post(`/orders/${lostOrder}/start`, loser.token)).body.error).toBe('Forbidden');
    expect((await api.post(`/orders/${lostOrder}/location`, loser.token, near(0))).status).toBe(403);
    expect((await api.post(`/orders/${lostOrder}/arrived`, loser.token, {})).status).toBe(403);
    expect(
      (await api.post(`/orders/${lostOrder}/deliver`, loser.token, { actualLiters: 10, deliveryPin: '1234' })).status,
    ).toBe(403);
    const loserCancel = await api.post(`/orders/${lostOrder}/cancel`, loser.token, {});
    expect(loserCancel.status).toBe(403);
    expect(loserCancel.body.error).toBe('CancelError');

    // Role guards: 401 without a token, 403 for the wrong role.
    expect((await api.get(`/orders/${f.orderId}`)).status).toBe(401);
    expect((await api.post('/orders', f.driver.token, orderBody())).status).toBe(403);
    expect((await api.get(`/orders/${f.orderId}/tracking`, f.driver.token)).status).toBe(403);
    expect((await api.post(`/orders/${f.orderId}/start`, f.client.token)).status).toBe(403);
  });

  it('answers wrong states: start, location, arrived, tracking, deliver, receipt', async () => {
    const f = await confirmedOrder(t);
    const tracking = await api.get(`/orders/${f.orderId}/tracking`, f.client.token);
    expect(tracking.status).toBe(200);
    expect(tracking.body.driver).toMatchObject({ id: f.driver.driverId });
    const location = await api.post(`/orders/${f.orderId}/location`, f.driver.token, near(0.01));
    expect(location.status).toBe(409);
    expect(location.body.error).toBe('WrongStatus');
    expect((await api.post(`/orders/${f.orderId}/arrived`, f.driver.token, {})).body.error).toBe('WrongStatus');
    expect((await api.get(`/orders/${f.orderId}/receipt`, f.client.token)).body.error).toBe('OrderNotDelivered');
    expect((await api.post(`/orders/${f.orderId}/start`, f.driver.token)).status).toBe(200);
    const twice = await api.post(`/orders/${f.orderId}/start`, f.driver.token);
    expect(twice.status).toBe(409);
    expect(twice.body.error).toBe('Conflict');
    const noLocation = await api.post(`/orders/${f.orderId}/arrived`, f.driver.token, {});
    expect(noLocation.status).toBe(409);
    expect(noLocation.body.error).toBe('NoLocation');
    clock.advance(60_000); // 1 km from its last position in a minute: a plausible drive
    expect((await api.post(`/orders/${f.orderId}/location`, f.driver.token, near(0.001))).status).toBe(204);
    clock.advance(6 * 60_000);
    try {
      expect((await api.post(`/orders/${f.orderId}/arrived`, f.driver.token, {})).body.error).toBe('NoLocation');
    } finally {
      clock.set('2026-01-01T12:00:00Z');
    }
    const badBody = await api.post(`/orders/${f.orderId}/location`, f.driver.token, { latitude: 91 });
    expect(Object.keys(badBody.body.details.fieldErrors).sort()).toEqual(['latitude', 'longitude']);
    const halfArrived = await api.post(`/orders/${f.orderId}/arrived`, f.driver.token, { latitude: 10 });
    expect(halfArrived.status).toBe(422);
    const badDeliver = await api.post(`/orders/${f.orderId}/deliver`, f.driver.token, {
      actualLiters: 0,
      deliveryPin: '12a4',
    });
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
    const online = await api.patch(`/orders/${orderId}/payment-method`, client.token, {
      paymentMethod: 'EXCHANGE_PAY',
    });
    expect(online.status).toBe(200);
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
    const toCash = await api.patch(`/orders/${orderId}/payment-method`, client.token, { paymentMethod: 'CASH_USD' });
    expect(toCash.status).toBe(409);
    expect(toCash.body.error).toBe('PaymentMethodLocked');
    expect(
      (await api.patch(`/orders/${orderId}/payment-method`, client.token, { paymentMethod: 'PAYPROV_DI' })).status,
    ).toBe(200);

    const confirmed = await confirmedOrder(t);
    const locked = await api.patch(`/orders/${confirmed.orderId}/payment-method`, confirmed.client.token, {
      paymentMethod: 'EXCHANGE_PAY',
    });
    expect(locked.status).toBe(409);
    expect(locked.body.error).toBe('PaymentMethodLocked');
  });

  it('cancels by the client, the assigned driver or an admin, with the caller’s reason catalogue', async () => {
    const client = await signInClient(t);
    const orderId = (await api.post('/orders', client.token, orderBody())).body.order.id;
    const wrongCatalogue = await api.post(`/orders/${orderId}/cancel`, client.token, { reason_code: 'DRIVER_TOO_FAR' });
    expect(wrongCatalogue.status).toBe(422);
    expect(wrongCatalogue.body.details.fieldErrors).toHaveProperty('reason_code');
    expect(
      (await api.post(`/orders/${orderId}/cancel`, client.token, { reason: 'r'.repeat(281) })).body.details.fieldErrors,
    ).toHaveProperty('reason');
    const cancelled = await api.post(`/orders/${orderId}/cancel`, client.token, {
      reason_code: 'CLIENT_CHANGED_MIND',
      reason: 'Ya no la necesito',
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.order).toMatchObject({
      id: orderId,
      status: 'CANCELLED',
      cancellation: { by_role: 'CLIENT', reason_code: 'CLIENT_CHANGED_MIND', reason: 'Ya no la necesito' },
    });
    const again = await api.post(`/orders/${orderId}/cancel`, client.token, {});
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('CancelError');
    // The slot is free again.
    expect((await api.post('/orders', client.token, orderBody())).status).toBe(201);

    const f = await confirmedOrder(t);
    const byDriver = await api.post(`/orders/${f.orderId}/cancel`, f.driver.token, {
      reason_code: 'DRIVER_VEHICLE_ISSUE',
    });
    expect(byDriver.status).toBe(200);
    expect(byDriver.body.order).toMatchObject({ status: 'CANCELLED' });
    expect(byDriver.body.order).not.toHaveProperty('client_pays_usd_x');
    expect(byDriver.body.order).toHaveProperty('driver_gross_usd');
    // The driver is free for the next order.
    expect((await api.get('/driver/orders', f.driver.token)).body.active).toBeNull();

    const g = await confirmedOrder(t);
    const admin = await signInAdmin(t);
    const byAdmin = await api.post(`/orders/${g.orderId}/cancel`, admin.token, { reason_code: 'ADMIN_SUPPORT' });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.order).toMatchObject({
      status: 'CANCELLED',
      solidary_fund_usd: 0,
      client_id: g.client.user.id,
    });
  });
});

describe('orders without an official exchange rate', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startApiUnderTest({ clock: new ManualClock(), env: { DEVELOPMENT_RATE_VES: '0' } });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('answers 422 ExchangeRateUnavailable until an admin records a rate', async () => {
    const api = call(t);
    const client = await signInClient(t);
    const refused = await api.post('/orders', client.token, orderBody());
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe('ExchangeRateUnavailable');
    const admin = await signInAdmin(t);
    expect((await api.post('/admin/exchange-rates', admin.token, { currency: 'VES', rate: 40.25 })).status).toBe(201);
    const created = await api.post('/orders', client.token, orderBody());
    expect(created.status).toBe(201);
    expect((await api.get(`/orders/${created.body.order.id}`, admin.token)).body.order.official_rate_cents).toBe(4025);
  });
});
