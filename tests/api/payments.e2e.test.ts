import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin, signInClient, type SignedInUser } from '../support/actors.js';
import { arrive, call, onlineDriver, orderBody } from '../support/orderFlows.js';
import { startTestService, type TestService } from '../support/testService.js';

/**
 * Payment intents, the immediate bank debit and manual payment forms, end to end over HTTP: an order is
 * created by a client, taken by a driver and accepted, so it waits for payment.
 */
let t: TestService;
let api: ReturnType<typeof call>;
let adminToken: string;
const clock = new ManualClock('2026-03-02T12:00:00Z');

const FORMS = { VES: 0, USD: 0 };
const VALENCIA = 3;

beforeAll(async () => {
  t = await startTestService({ clock, env: { OFFICIAL_RATE_VES: '36.5' } });
  api = call(t);
  adminToken = (await signInAdmin(t)).token;
  const forms = await api.get('/payment-forms', adminToken);
  FORMS.VES = forms.body.forms.find((f: { currency: string }) => f.currency === 'VES').id;
  FORMS.USD = forms.body.forms.find((f: { currency: string }) => f.currency === 'USD').id;
}, 60_000);

afterAll(async () => {
  await t?.stop();
});

const must = (what: string, r: { status: number; body: any }, status: number) => {
  if (r.status !== status) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
};

/**
 * A client's order in WAITING_FOR_PAYMENT: created with `method`, taken by a driver (one active order each), accepted.
 */
const waitingOrder = async (
  method: string,
  opts: { client?: SignedInUser; formId?: number; basePrice?: number } = {},
) => {
  const client = opts.client ?? (await signInClient(t));
  const driver = await onlineDriver(t);
  const created = must(
    'POST /orders',
    await api.post(
      '/orders',
      client.token,
      orderBody({
        paymentMethod: method,
        basePrice: opts.basePrice ?? 25,
        ...(opts.formId ? { paymentFormId: opts.formId } : {}),
      }),
    ),
    201,
  );
  const orderId: number = created.order.id;
  const offer = must('accept', await api.post(`/orders/${orderId}/accept`, driver.token, {}), 201).offer;
  const accepted = must('accept offer', await api.post(`/orders/offers/${offer.id}/accept`, client.token), 200).order;
  return { client, orderId, order: accepted };
};

const cents = (usd: number) => Math.round(usd * 100);

describe('payment intents', () => {
  it("opens an intent whose amount is the order's client_charged, with every field of the resource", async () => {
    const { client, orderId, order } = await waitingOrder('EXCHANGE_PAY');
    expect(order.status).toBe('WAITING_FOR_PAYMENT');
    const r = await api.post(`/orders/${orderId}/payment`, client.token, { method: 'EXCHANGE_PAY' });
    expect(r.status).toBe(200);
    const p = r.body.payment;
    expect(Object.keys(p).sort()).toEqual(
      [
        'id',
        'order_id',
        'user_id',
        'method',
        'provider',
        'payment_form_id',
        'internal_type',
        'status',
        'amount_cents',
        'amount_usd',
        'amount_bs_cents',
        'official_rate_cents',
        'reference',
        'provider_ref',
        'receipt_url',
        'reported_at',
        'expires_at',
        'confirmed_at',
        'failure_reason',
        'currency',
        'created_at',
        'updated_at',
        'platform_revenue_usd',
        'solidary_fund_usd',
      ].sort(),
    );
    expect(p).toMatchObject({
      order_id: orderId,
      user_id: client.user.id,
      method: 'EXCHANGE_PAY',
      provider: 'exchangepay',
      status: 'PENDING',
      currency: 'USD',
    });
    expect(p.amount_usd).toBe(order.client_charged_usd);
    expect(p.amount_cents).toBe(cents(order.client_charged_usd));
    expect(p.provider_ref).toEqual(expect.any(String));
    expect(r.body.checkoutUrl).toMatch(/^https:\/\//);

    // Refreshing returns the same intent; GET reads it back.
    const again = await api.post(`/orders/${orderId}/payment`, client.token, { method: 'EXCHANGE_PAY' });
    expect(again.body.payment.id).toBe(p.id);
    const read = await api.get(`/orders/${orderId}/payment`, client.token);
    expect(read.status).toBe(200);
    expect(read.body.payment).toEqual(again.body.payment);
  });

  it('concurrent requests open one intent', async () => {
    const { client, orderId } = await waitingOrder('EXCHANGE_PAY');
    const rs = await Promise.all(
      Array.from({ length: 8 }, () => api.post(`/orders/${orderId}/payment`, client.token, { method: 'EXCHANGE_PAY' })),
    );
    expect(rs.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(new Set(rs.map((r) => r.body.payment.id)).size).toBe(1);
  });

  it(
    "refuses an unknown method, another method than the order's, " +
      "missing bodies and orders that are not the caller's",
    async () => {
      const { client, orderId } = await waitingOrder('EXCHANGE_PAY');
      expect((await api.post(`/orders/${orderId}/payment`, client.token, { method: 'BITCOIN' })).status).toBe(400);
      const other = await api.post(`/orders/${orderId}/payment`, client.token, { method: 'PAYPROV_DI' });
      expect(other.status).toBe(400);
      expect(other.body.error).toBe('PaymentError');
      const missing = await api.post(`/orders/${orderId}/payment`, client.token, {});
      expect(missing.status).toBe(422);
      expect(missing.body.details.fieldErrors.method).toBeDefined();
      const stranger = await signInClient(t);
      expect((await api.post(`/orders/${orderId}/payment`, stranger.token, { method: 'EXCHANGE_PAY' })).status).toBe(
        404,
      );
      expect(
        (await api.post(`/orders/${orderId}/payment`, (await onlineDriver(t)).token, { method: 'EXCHANGE_PAY' }))
          .status,
      ).toBe(404);
      expect((await api.post('/orders/999999/payment', client.token, { method: 'EXCHANGE_PAY' })).status).toBe(404);
      expect((await api.post(`/orders/${orderId}/payment`, undefined, { method: 'EXCHANGE_PAY' })).status).toBe(401);
    },
  );

  it("GET payment: 404 without a payment, 403 for another user's", async () => {
    const { client, orderId } = await waitingOrder('EXCHANGE_PAY');
    const none = await api.get(`/orders/${orderId}/payment`, client.token);
    expect(none.status).toBe(404);
    must('intent', await api.post(`/orders/${orderId}/payment`, client.token, { method: 'EXCHANGE_PAY' }), 200);
    const stranger = await signInClient(t);
    const foreign = await api.get(`/orders/${orderId}/payment`, stranger.token);
    expect(foreign.status).toBe(403);
    expect(foreign.body.error).toBe('Forbidden');
    expect((await api.get('/orders/999999/payment', client.token)).status).toBe(404);
  });

  it('a fully promoted order gets a zero intent, confirmed at once', async () => {
    const client = await signInClient(t);
    must(
      'credit',
      await api.post(`/admin/customers/${client.user.id}/credit/adjust`, adminToken, {
        type: 'credit',
        amount: 100,
        reason: 'Welcome promotion for tests',
      }),
      200,
    );
    const created = must(
      'POST /orders',
      await api.post('/orders', client.token, orderBody({ paymentMethod: 'EXCHANGE_PAY', basePrice: 20 })),
      201,
    ).order;
    const offer = must(
      'accept',
      await api.post(`/orders/${created.id}/accept`, (await onlineDriver(t)).token, {}),
      201,
    ).offer;
    const order = must('accept offer', await api.post(`/orders/offers/${offer.id}/accept`, client.token), 200).order;
    expect(order.is_fully_promoted).toBe(true);
    expect(order.status).toBe('CONFIRMED');
    const r = await api.post(`/orders/${created.id}/payment`, client.token, { method: 'EXCHANGE_PAY' });
    expect(r.status).toBe(200);
    expect(r.body.payment).toMatchObject({
      amount_cents: 0,
      amount_usd: order.client_charged_usd,
      status: 'CONFIRMED',
    });
    expect(r.body.checkoutUrl).toBeNull();
  });

  it('a changed payment method supersedes the pending intent; the new one carries the new amount', async () => {
    const { client, orderId } = await waitingOrder('EXCHANGE_PAY');
    const first = must(
      'intent',
      await api.post(`/orders/${orderId}/payment`, client.token, { method: 'EXCHANGE_PAY' }),
      200,
    ).payment;
    const changed = must(
      'PATCH method',
      await api.patch(`/orders/${orderId}/payment-method`, client.token, { paymentMethod: 'PAYPROV_DI' }),
      200,
    ).order;
    const second = must(
      'intent',
      await api.post(`/orders/${orderId}/payment`, client.token, { method: 'PAYPROV_DI' }),
      200,
    ).payment;
    expect(second.id).not.toBe(first.id);
    expect(second.amount_usd).toBe(changed.client_charged_usd);
    // The old intent is failed, so a late confirmation of it cannot confirm the order.
    const queue = must(
      'queue',
      await api.get('/admin/payments/pending?method=EXCHANGE_PAY&limit=100', adminToken),
      200,
    );
    expect(queue.items.find((i: { id: number }) => i.id === first.id)).toMatchObject({
      status: 'FAILED',
      actionable: false,
    });
  });
});

describe('immediate bank debit (PAYPROV_DI)', () => {
  const payer = { bank_code: '0102', id_number: 'V12345678', phone: '04141234567', name: 'Ana Pérez' };

  it('prepare then report with a good OTP confirms the payment and the order', async () => {
    const { client, orderId, order } = await waitingOrder('PAYPROV_DI');
    const prepared = await api.post(`/orders/${orderId}/payment/prepare`, client.token, payer);
    expect(prepared.status).toBe(200);
    expect(prepared.body.prepared).toBe(true);
    expect(prepared.body.payment).toMatchObject({
      status: 'PENDING',
      method: 'PAYPROV_DI',
      amount_usd: order.client_charged_usd,
    });
    expect(prepared.body.payment.provider_ref).toEqual(expect.any(String));
    const reported = await api.post(`/orders/${orderId}/payment/report`, client.token, { ...payer, otp: '123456' });
    expect(reported.status).toBe(200);
    expect(reported.body.payment).toMatchObject({ status: 'CONFIRMED', amount_usd: order.client_charged_usd });
    expect(reported.body.payment.confirmed_at).toEqual(expect.any(String));
    expect(reported.body.payment.reference).toEqual(expect.any(String));
    const after = must('GET order', await api.get(`/orders/${orderId}`, client.token), 200).order;
    expect(after.status).toBe('CONFIRMED');
    // Nothing is left to prepare.
    expect((await api.post(`/orders/${orderId}/payment/prepare`, client.token, payer)).status).toBe(422);
  });

  it('a rejected OTP is 400 PaymentError, fails the attempt, and a new attempt can pay', async () => {
    const { client, orderId } = await waitingOrder('PAYPROV_DI');
    must('prepare', await api.post(`/orders/${orderId}/payment/prepare`, client.token, payer), 200);
    const bad = await api.post(`/orders/${orderId}/payment/report`, client.token, { ...payer, otp: '000000' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('PaymentError');
    const failed = must('GET payment', await api.get(`/orders/${orderId}/payment`, client.token), 200).payment;
    expect(failed.status).toBe('FAILED');
    must('prepare again', await api.post(`/orders/${orderId}/payment/prepare`, client.token, payer), 200);
    const ok = must(
      'report',
      await api.post(`/orders/${orderId}/payment/report`, client.token, { ...payer, otp: '654321' }),
      200,
    );
    expect(ok.payment.status).toBe('CONFIRMED');
    expect(ok.payment.id).not.toBe(failed.id);
  });

  it('report before prepare is 422; bad bodies are 422 naming the field', async () => {
    const { client, orderId } = await waitingOrder('PAYPROV_DI');
    expect(
      (await api.post(`/orders/${orderId}/payment/report`, client.token, { ...payer, otp: '123456' })).status,
    ).toBe(422);
    const missing = await api.post(`/orders/${orderId}/payment/prepare`, client.token, { bank_code: '0102' });
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.details.fieldErrors).sort()).toEqual(['id_number', 'phone']);
    const noOtp = await api.post(`/orders/${orderId}/payment/report`, client.token, payer);
    expect(noOtp.body.details.fieldErrors.otp).toBeDefined();
  });

  it("gating: 404 unknown order, 403 another's order, 422 wrong method or status", async () => {
    const { client, orderId } = await waitingOrder('PAYPROV_DI');
    const stranger = await signInClient(t);
    const foreign = await api.post(`/orders/${orderId}/payment/prepare`, stranger.token, payer);
    expect(foreign.status).toBe(403);
    expect(foreign.body.error).toBe('Forbidden');
    expect(
      (await api.post(`/orders/${orderId}/payment/report`, stranger.token, { ...payer, otp: '123456' })).status,
    ).toBe(403);
    const unknown = await api.post('/orders/999999/payment/prepare', client.token, payer);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('NotFound');
    const other = await waitingOrder('EXCHANGE_PAY', { client: stranger });
    const wrong = await api.post(`/orders/${other.orderId}/payment/prepare`, stranger.token, payer);
    expect(wrong.status).toBe(422);
    expect(wrong.body.error).toBe('Unprocessable');
  });
});

describe('payment forms', () => {
  it('GET form shows display, fields and the amount; VES forms add bolivars at the official rate', async () => {
    const { client, orderId, order } = await waitingOrder('PAYMENT_FORM', { formId: FORMS.VES });
    const r = await api.get(`/orders/${orderId}/payment/form`, client.token);
    expect(r.status).toBe(200);
    expect(r.body.form).toMatchObject({ id: FORMS.VES, currency: 'VES', category: 'pago_movil' });
    expect(r.body.display.length).toBeGreaterThan(0);
    expect(r.body.fields[0]).toEqual({
      index: expect.any(Number),
      label: expect.any(String),
      required: expect.any(Boolean),
      hint: expect.anything(),
      input_type: expect.any(String),
    });
    const chargedCents = cents(order.client_charged_usd);
    expect(r.body.amount).toEqual({
      usd: order.client_charged_usd,
      currency: 'VES',
      bs: Math.round(chargedCents * 36.5) / 100,
      official_rate: 36.5,
    });

    const usd = await waitingOrder('PAYMENT_FORM', { formId: FORMS.USD });
    const usdForm = must('GET form', await api.get(`/orders/${usd.orderId}/payment/form`, usd.client.token), 200);
    expect(usdForm.amount).toEqual({ usd: usd.order.client_charged_usd, currency: 'USD' });
  });

  it('report: values checked by field index, rate fixed when reported, method then locked', async () => {
    const { client, orderId, order } = await waitingOrder('PAYMENT_FORM', { formId: FORMS.VES, basePrice: 33.33 });
    const bad = await api.post(`/orders/${orderId}/payment/form`, client.token, {
      values: [
        { index: 2, value: 'not a phone' },
        { index: 99, value: 'ignored' },
      ],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toBe('ValidationError');
    expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual(['1', '2', '3', '4']);
    expect((await api.get(`/orders/${orderId}/payment`, client.token)).status).toBe(404); // nothing written

    // A new official rate is in force when the client reports: that rate is fixed on the payment.
    must('new rate', await api.post('/admin/exchange-rates', adminToken, { currency: 'VES', rate: 40.25 }), 201);
    const values = [
      { index: 1, value: '0105 - Mercantil' },
      { index: 2, value: '0414-123-4567' },
      { index: 3, value: 'REF998877' },
      { index: 4, value: '2026-03-02' },
    ];
    const ok = await api.post(`/orders/${orderId}/payment/form`, client.token, { values });
    expect(ok.status).toBe(200);
    const chargedCents = cents(order.client_charged_usd);
    const bsCents = Math.round(chargedCents * 40.25);
    expect(ok.body.payment).toEqual({
      id: expect.any(Number),
      status: 'PROCESSING',
      method: 'PAYMENT_FORM',
      internal_type: 'pago_movil_bdv',
      reference: 'REF998877',
      amount_usd: order.client_charged_usd,
      amount_bs: bsCents / 100,
      currency: 'VES',
    });
    const full = must('GET payment', await api.get(`/orders/${orderId}/payment`, client.token), 200).payment;
    expect(full).toMatchObject({
      amount_cents: chargedCents,
      amount_bs_cents: bsCents,
      official_rate_cents: 4025,
      reported_at: expect.any(String),
    });
    // A later rate changes nothing on a reported payment.
    must('newer rate', await api.post('/admin/exchange-rates', adminToken, { currency: 'VES', rate: 50 }), 201);
    expect(
      must('GET payment', await api.get(`/orders/${orderId}/payment`, client.token), 200).payment.amount_bs_cents,
    ).toBe(bsCents);

    // Reported: the method is locked, and there is nothing more to report.
    const lock = await api.patch(`/orders/${orderId}/payment-method`, client.token, { paymentMethod: 'PAYPROV_DI' });
    expect(lock.status).toBe(409);
    expect(lock.body.error).toBe('PaymentMethodLocked');
    const twice = await api.post(`/orders/${orderId}/payment/form`, client.token, { values });
    expect(twice.status).toBe(422);
    expect(twice.body.error).toBe('Unprocessable');
  });

  it('USD forms report without bolivars; the payment waits in the review queue of its city’s admins only', async () => {
    const { client, orderId, order } = await waitingOrder('PAYMENT_FORM', { formId: FORMS.USD }); // in Caracas
    const ok = must(
      'report',
      await api.post(`/orders/${orderId}/payment/form`, client.token, {
        values: [
          { index: 1, value: 'Ana Pérez' },
          { index: 2, value: 'ana@example.com' },
          { index: 3, value: 'ZL-12345' },
        ],
      }),
      200,
    );
    expect(ok.payment).toMatchObject({
      status: 'PROCESSING',
      amount_usd: order.client_charged_usd,
      amount_bs: null,
      currency: 'USD',
    });
    // The queue finds an order's city in the reports' read model (api/admin/cityScope.api.int.test.ts has the
    // approval and rejection by another city's admin, which need no read model).
    const queueIds = async (token: string): Promise<number[]> =>
      must('queue', await api.get('/admin/payments/pending?method=PAYMENT_FORM&limit=100', token), 200).items.map(
        (p: { id: number }) => p.id,
      );
    const local = await signInAdmin(t, { superAdmin: false, cityIds: [1] });
    const elsewhere = await signInAdmin(t, { superAdmin: false, cityIds: [VALENCIA] });
    expect(await queueIds(local.token)).toContain(ok.payment.id);
    expect(await queueIds(elsewhere.token)).not.toContain(ok.payment.id);
  });

  it('gating: 404 for unknown or foreign orders, 422 when the order does not use a form', async () => {
    const { orderId } = await waitingOrder('PAYMENT_FORM', { formId: FORMS.USD });
    const stranger = await signInClient(t);
    expect((await api.get(`/orders/${orderId}/payment/form`, stranger.token)).status).toBe(404);
    expect(
      (await api.post(`/orders/${orderId}/payment/form`, stranger.token, { values: [{ index: 1, value: 'x' }] }))
        .status,
    ).toBe(404);
    expect((await api.get('/orders/999999/payment/form', stranger.token)).status).toBe(404);
    const online = await waitingOrder('EXCHANGE_PAY', { client: stranger });
    const wrong = await api.get(`/orders/${online.orderId}/payment/form`, stranger.token);
    expect(wrong.status).toBe(422);
    expect(wrong.body.error).toBe('Unprocessable');
    const empty = await api.post(`/orders/${online.orderId}/payment/form`, stranger.token, { values: [] });
    expect(empty.status).toBe(422);
    expect(empty.body.details.fieldErrors.values).toBeDefined();
  });
});

describe('order effects', () => {
  // An order's expiry and cancellation fail its payment:
  // commands/payment/reactions.test.ts and domain/payment/payment.test.ts.
  it('cash: the intent is listed for review but not actionable, and delivery confirms it', async () => {
    const client = await signInClient(t);
    const driver = await onlineDriver(t);
    const created = must(
      'POST /orders',
      await api.post('/orders', client.token, orderBody({ paymentMethod: 'CASH_USD' })),
      201,
    ).order;
    const offer = must('accept', await api.post(`/orders/${created.id}/accept`, driver.token, {}), 201).offer;
    const order = must('accept offer', await api.post(`/orders/offers/${offer.id}/accept`, client.token), 200).order;
    const p = must(
      'intent',
      await api.post(`/orders/${created.id}/payment`, client.token, { method: 'CASH_USD' }),
      200,
    ).payment;
    expect(p).toMatchObject({ status: 'PENDING', method: 'CASH_USD', amount_usd: order.client_charged_usd });
    const queue = must('queue', await api.get('/admin/payments/pending?method=CASH_USD&limit=100', adminToken), 200);
    expect(queue.items.find((i: { id: number }) => i.id === p.id)).toMatchObject({ actionable: false });
    const approve = await api.post(`/admin/payments/${p.id}/approve`, adminToken, { reason: 'Trying to approve cash' });
    expect(approve.status).toBe(422);
    expect(approve.body.error).toBe('PaymentApprovalFailed');

    await arrive(t, { client, driver, orderId: created.id, offerId: offer.id, pin: order.delivery_pin });
    must(
      'deliver',
      await api.post(`/orders/${created.id}/deliver`, driver.token, {
        actualLiters: 2000,
        deliveryPin: order.delivery_pin,
      }),
      200,
    );
    let payment: any;
    for (let i = 0; i < 6; i++) {
      await t.service.ctx.scheduler.tick();
      payment = must('GET payment', await api.get(`/orders/${created.id}/payment`, client.token), 200).payment;
      if (payment.status === 'CONFIRMED') break;
    }
    expect(payment).toMatchObject({ status: 'CONFIRMED', amount_usd: order.client_charged_usd });
  });
});
