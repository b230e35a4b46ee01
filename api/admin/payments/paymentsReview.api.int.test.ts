import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivedEventId } from '../../../commands/origin.js';
import { orderStream } from '../../../domain/order/events.js';
import { paymentStream } from '../../../domain/payment/events.js';
import { paymentDecider } from '../../../domain/payment/payment.js';
import { signInAdmin, signInClient } from '../../../tests/support/actors.js';
import {
  expectNewEvents,
  expectNoNewEvents,
  expectNothingAppended,
  expectResponse,
  race,
  refused,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../../tests/support/apiSpecification.js';
import { call, onlineDriver, orderBody } from '../../../tests/support/orderFlows.js';

/**
 * Provider webhooks and the back-office review: money enters here, so each confirmation must apply once
 * however often (and however concurrently) it arrives, and forged deliveries must leave nothing behind.
 */
const SECRET = 'webhook-secret-for-tests';
let t: ApiUnderTest;
let api: ReturnType<typeof call>;
let adminToken: string;
let adminId: number;
let usdFormId: number;
let pagoMovilFormId: number;

beforeAll(async () => {
  t = await startApiUnderTest({ env: { OFFICIAL_RATE_VES: '36.5', PAYMENT_WEBHOOK_SECRET: SECRET } });
  api = call(t);
  const admin = await signInAdmin(t);
  adminToken = admin.token;
  adminId = admin.admin.id;
  const forms = await api.get('/payment-forms', adminToken);
  usdFormId = forms.body.forms.find((f: { currency: string }) => f.currency === 'USD').id;
  pagoMovilFormId = forms.body.forms.find((f: { category: string }) => f.category === 'pago_movil').id;
}, 60_000);

afterAll(async () => {
  await t?.stop();
});

const must = (what: string, r: { status: number; body: any }, status: number) => {
  if (r.status !== status) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
};

const waitingOrder = async (method: string, formId?: number) => {
  const client = await signInClient(t);
  const driver = await onlineDriver(t);
  const created = must(
    'POST /orders',
    await api.post(
      '/orders',
      client.token,
      orderBody({ paymentMethod: method, ...(formId ? { paymentFormId: formId } : {}) }),
    ),
    201,
  );
  const offer = must('accept', await api.post(`/orders/${created.order.id}/accept`, driver.token, {}), 201).offer;
  const order = must('accept offer', await api.post(`/orders/offers/${offer.id}/accept`, client.token), 200).order;
  return { client, orderId: order.id as number, order };
};

/** An EXCHANGE_PAY order with its open intent. */
const exchangeIntent = async () => {
  const w = await waitingOrder('EXCHANGE_PAY');
  const payment = must(
    'intent',
    await api.post(`/orders/${w.orderId}/payment`, w.client.token, { method: 'EXCHANGE_PAY' }),
    200,
  ).payment;
  return { ...w, payment };
};

/** A PAYMENT_FORM order whose payment was reported (PROCESSING). */
const reportedForm = async () => {
  const w = await waitingOrder('PAYMENT_FORM', usdFormId);
  const values = [
    { index: 1, value: 'Ana Pérez' },
    { index: 2, value: 'ana@example.com' },
    { index: 3, value: `ZL-${w.orderId}0000` },
  ];
  const payment = must(
    'report',
    await api.post(`/orders/${w.orderId}/payment/form`, w.client.token, { values }),
    200,
  ).payment;
  return { ...w, payment };
};

const sign = (raw: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

const deliver = (provider: string, raw: string, signature: string | null = sign(raw)) =>
  t.request('POST', `/api/v1/payments/webhook/${provider}`, {
    raw,
    headers: signature === null ? {} : { 'x-signature': signature },
  });

const eventTypes = async (streamId: string) => (await t.service.ctx.store.readStream(streamId)).map((e) => e.type);
const count = (types: string[], type: string) => types.filter((x) => x === type).length;

const confirmation = (id: string, reference: string, amountCents: number, type = 'payment.confirmed') =>
  JSON.stringify({ id, type, data: { reference, amount_cents: amountCents } });

/** The provider's event, recorded on the payment's stream once per provider event id, whatever its effect. */
const recorded = (providerEventId: string, amountCents: number, eventType = 'payment.confirmed') => ({
  type: 'PaymentProviderEventRecorded',
  data: { provider: 'exchangepay', providerEventId, eventType, amountCents },
});
/** The order leaves WAITING_FOR_PAYMENT, paid by this payment. */
const paid = (orderId: number, paymentId: number) =>
  expectNewEvents(orderStream(orderId), [{ type: 'OrderPaid', data: { orderId, paymentId } }]);

describe('payment webhook', () => {
  it('a verified confirmation confirms the payment and the order (204)', async () => {
    const { client, orderId, payment } = await exchangeIntent();
    await t
      .given()
      .when(() => deliver('exchangepay', confirmation('evt_a1', payment.provider_ref, payment.amount_cents)))
      .then(
        expectResponse(204),
        expectNewEvents(paymentStream(payment.id), [
          recorded('evt_a1', payment.amount_cents),
          {
            type: 'PaymentConfirmed',
            // By the provider, though the order's OrderPaid reaction confirms it before the webhook's own send.
            data: {
              paymentId: payment.id,
              orderId,
              amountCents: payment.amount_cents,
              by: 'provider',
              adminId: null,
              reason: null,
            },
          },
        ]),
        paid(orderId, payment.id),
      );
    const after = must('GET payment', await api.get(`/orders/${orderId}/payment`, client.token), 200).payment;
    expect(after).toMatchObject({
      status: 'CONFIRMED',
      amount_cents: payment.amount_cents,
      confirmed_at: expect.any(String),
    });
    expect(must('GET order', await api.get(`/orders/${orderId}`, client.token), 200).order.status).toBe('CONFIRMED');
  });

  it('the same event delivered 50 times, concurrently with an admin approval, confirms once', async () => {
    const { client, orderId, payment } = await exchangeIntent();
    const raw = confirmation('evt_dup', payment.provider_ref, payment.amount_cents);
    const racing = race((api) => [
      api.post(`/admin/payments/${payment.id}/approve`, adminToken, { reason: 'Seen in the exchange dashboard' }),
      ...Array.from({ length: 50 }, () => deliver('exchangepay', raw)),
    ]);
    // One confirmation (the provider's or the admin's) and one payment of the order, whoever won.
    await t
      .given()
      .when(racing.send)
      .then(paid(orderId, payment.id), async ({ newEventsOf }) => {
        const confirmed = (await newEventsOf(paymentStream(payment.id))).filter((e) => e.type === 'PaymentConfirmed');
        expect(confirmed).toMatchObject([{ data: { paymentId: payment.id, amountCents: payment.amount_cents } }]);
      });
    const [approval, ...deliveries] = racing.responses;
    expect(deliveries.map((d) => d.status)).toEqual(Array(50).fill(204));
    // The approval either won the race or found the payment already confirmed.
    expect([200, 422]).toContain(approval.status);
    if (approval.status === 422) expect(approval.body.error).toBe('PaymentApprovalFailed');
    const paymentEvents = await eventTypes(`payment-${payment.id}`);
    expect(count(paymentEvents, 'PaymentConfirmed')).toBe(1);
    expect(count(paymentEvents, 'PaymentProviderEventRecorded')).toBe(1);
    expect(count(await eventTypes(`order-${orderId}`), 'OrderPaid')).toBe(1);
    expect(must('GET order', await api.get(`/orders/${orderId}`, client.token), 200).order.status).toBe('CONFIRMED');
    // Later redeliveries still answer 204 and append nothing.
    await t
      .given()
      .when(() => deliver('exchangepay', raw))
      .then(expectResponse(204), expectNothingAppended);
    expect(await eventTypes(`payment-${payment.id}`)).toEqual(paymentEvents);
  });

  it('a delivery recorded but never applied (a crash in between) is applied once by the catch-up', async () => {
    const { client, orderId, payment } = await exchangeIntent();
    // The crash: the provider's event is on the payment's stream under the id the webhook gives it, and no
    // reaction ran.
    await t.service.ctx.handle(
      paymentDecider,
      paymentStream(payment.id),
      {
        type: 'RecordProviderEvent',
        provider: 'exchangepay',
        providerEventId: 'evt_crash',
        eventType: 'payment.confirmed',
        amountCents: payment.amount_cents,
        now: new Date(),
      },
      { eventIds: () => derivedEventId('webhook/exchangepay', 'evt_crash'), react: false },
    );
    const order = () => api.get(`/orders/${orderId}`, client.token);
    expect(must('GET order', await order(), 200).order.status).toBe('WAITING_FOR_PAYMENT');
    // The provider's redelivery records nothing new and is still acknowledged.
    const raw = confirmation('evt_crash', payment.provider_ref, payment.amount_cents);
    await t
      .given()
      .when(() => deliver('exchangepay', raw))
      .then(expectResponse(204), expectNothingAppended);
    // The catch-up trails the head its previous run saw: the second run reaches the recorded event.
    await t.service.ctx.scheduler.tick();
    await t.service.ctx.scheduler.tick();
    expect(must('GET order', await order(), 200).order.status).toBe('CONFIRMED');
    const paymentEvents = await eventTypes(`payment-${payment.id}`);
    expect(count(paymentEvents, 'PaymentProviderEventRecorded')).toBe(1);
    expect(count(paymentEvents, 'PaymentConfirmed')).toBe(1);
    expect(count(await eventTypes(`order-${orderId}`), 'OrderPaid')).toBe(1);
  });

  it('a forged or missing signature is 400 InvalidWebhook and changes nothing', async () => {
    const { client, orderId, payment } = await exchangeIntent();
    const before = { payment: await eventTypes(`payment-${payment.id}`), order: await eventTypes(`order-${orderId}`) };
    const raw = confirmation('evt_forged', payment.provider_ref, payment.amount_cents);
    for (const signature of [
      sign(raw, 'not-the-secret'),
      sign(raw.replace('evt_forged', 'evt_other')),
      'sha256=zz',
      'md5=abc',
      null,
    ]) {
      await refused(t, () => deliver('exchangepay', raw, signature), 400, 'InvalidWebhook');
    }
    expect(await eventTypes(`payment-${payment.id}`)).toEqual(before.payment);
    expect(await eventTypes(`order-${orderId}`)).toEqual(before.order);
    expect(must('GET payment', await api.get(`/orders/${orderId}/payment`, client.token), 200).payment.status).toBe(
      'PENDING',
    );
  });

  it('unsupported provider 400, empty body 500 without a stack, unparseable event 400', async () => {
    const { payment } = await exchangeIntent();
    const raw = confirmation('evt_b1', payment.provider_ref, payment.amount_cents);
    const unsupported = await refused(t, () => deliver('paypal', raw), 400, 'UnsupportedProvider');
    expect(unsupported.body).toMatchObject({ error: 'UnsupportedProvider', message: expect.any(String) });
    // The document lists the providers this test gets past the provider check with, and no other.
    const doc = (await t.request('GET', '/api/v1/openapi.json')).body;
    const webhook = doc.paths['/payments/webhook/{provider}'].post;
    expect(webhook.parameters[0].schema.enum).toEqual(['exchangepay', 'payprov']);
    expect(webhook.requestBody.content['application/json'].schema.type).toBe('object');

    const empty = await refused(
      t,
      (api) => api.post('/payments/webhook/exchangepay', undefined, undefined, { 'x-signature': sign('') }),
      500,
    );
    expect(Object.keys(empty.body).sort()).toEqual(['error', 'message']);

    for (const body of [
      '{not json',
      '[]',
      '{"id":"x"}',
      JSON.stringify({
        id: 'evt',
        type: 'payment.refunded',
        data: { reference: payment.provider_ref, amount_cents: 1 },
      }),
    ]) {
      await refused(t, () => deliver('exchangepay', body), 400, 'InvalidWebhook');
    }
    await refused(t, () => deliver('exchangepay', confirmation('evt_c1', 'xp_unknown', 100)), 400);
    // A reference of another provider's payment is not this provider's to confirm.
    await refused(t, () => deliver('payprov', raw), 400);
    expect(count(await eventTypes(`payment-${payment.id}`), 'PaymentProviderEventRecorded')).toBe(0);
  });

  it('a confirmation of another amount is recorded but confirms nothing', async () => {
    const { client, orderId, payment } = await exchangeIntent();
    await t
      .given()
      .when(() => deliver('exchangepay', confirmation('evt_short', payment.provider_ref, payment.amount_cents - 1)))
      .then(
        expectResponse(204),
        expectNewEvents(paymentStream(payment.id), [recorded('evt_short', payment.amount_cents - 1)]),
        expectNoNewEvents(orderStream(orderId)),
      );
    expect(must('GET payment', await api.get(`/orders/${orderId}/payment`, client.token), 200).payment.status).toBe(
      'PENDING',
    );
    expect(must('GET order', await api.get(`/orders/${orderId}`, client.token), 200).order.status).toBe(
      'WAITING_FOR_PAYMENT',
    );
  });

  it('payment.failed fails the payment; the client may open a new intent and pay it', async () => {
    const { client, orderId, payment } = await exchangeIntent();
    await t
      .given()
      .when(() =>
        deliver('exchangepay', confirmation('evt_f1', payment.provider_ref, payment.amount_cents, 'payment.failed')),
      )
      .then(
        expectResponse(204),
        expectNewEvents(paymentStream(payment.id), [
          recorded('evt_f1', payment.amount_cents, 'payment.failed'),
          { type: 'PaymentFailed', data: { paymentId: payment.id, orderId, by: 'provider', adminId: null } },
        ]),
      );
    expect(must('GET payment', await api.get(`/orders/${orderId}/payment`, client.token), 200).payment.status).toBe(
      'FAILED',
    );
    // A late confirmation of the failed attempt does not confirm the order.
    await t
      .given()
      .when(() => deliver('exchangepay', confirmation('evt_f2', payment.provider_ref, payment.amount_cents)))
      .then(
        expectResponse(204),
        expectNewEvents(paymentStream(payment.id), [recorded('evt_f2', payment.amount_cents)]),
        expectNoNewEvents(orderStream(orderId)),
      );
    expect(must('GET order', await api.get(`/orders/${orderId}`, client.token), 200).order.status).toBe(
      'WAITING_FOR_PAYMENT',
    );
    const next = must(
      'intent',
      await api.post(`/orders/${orderId}/payment`, client.token, { method: 'EXCHANGE_PAY' }),
      200,
    ).payment;
    expect(next.id).not.toBe(payment.id);
    await t
      .given()
      .when(() => deliver('exchangepay', confirmation('evt_f3', next.provider_ref, next.amount_cents)))
      .then(
        expectResponse(204),
        expectNewEvents(paymentStream(next.id), [
          recorded('evt_f3', next.amount_cents),
          { type: 'PaymentConfirmed', data: { paymentId: next.id, amountCents: next.amount_cents } },
        ]),
        paid(orderId, next.id),
      );
    expect(must('GET order', await api.get(`/orders/${orderId}`, client.token), 200).order.status).toBe('CONFIRMED');
  });
});

describe('admin payment review', () => {
  it(
    'the queue lists PENDING, PROCESSING and FAILED payments ' + 'oldest first, page by page, filtered by method',
    async () => {
      const a = await reportedForm();
      const b = await exchangeIntent();
      const c = await reportedForm();
      const all = must('queue', await api.get('/admin/payments/pending?limit=100', adminToken), 200);
      expect(all.meta).toMatchObject({
        per_page: 100,
        current_page: 1,
        total: expect.any(Number),
        last_page: expect.any(Number),
      });
      const ids = all.items.map((i: { id: number }) => i.id);
      expect(ids.indexOf(a.payment.id)).toBeLessThan(ids.indexOf(b.payment.id));
      expect(ids.indexOf(b.payment.id)).toBeLessThan(ids.indexOf(c.payment.id));
      const created = all.items.map((i: { created_at: string }) => i.created_at);
      expect([...created].sort()).toEqual(created);
      const item = all.items.find((i: { id: number }) => i.id === a.payment.id);
      expect(item).toMatchObject({
        status: 'PROCESSING',
        method: 'PAYMENT_FORM',
        actionable: true,
        order: { id: a.orderId, status: 'WAITING_FOR_PAYMENT' },
      });
      expect(item.reported_values.map((v: { index: number }) => v.index)).toEqual([1, 2, 3]);
      for (const i of all.items) expect(['PENDING', 'PROCESSING', 'FAILED']).toContain(i.status);

      const forms = must(
        'queue',
        await api.get('/admin/payments/pending?method=PAYMENT_FORM&limit=100', adminToken),
        200,
      );
      expect(forms.items.every((i: { method: string }) => i.method === 'PAYMENT_FORM')).toBe(true);
      const page2 = must('queue', await api.get('/admin/payments/pending?limit=1&page=2', adminToken), 200);
      expect(page2.items).toHaveLength(1);
      expect(page2.items[0].id).toBe(all.items[1].id);
      expect(page2.meta).toMatchObject({ per_page: 1, current_page: 2, last_page: all.meta.total });

      const bad = await api.get('/admin/payments/pending?method=PAGO_MOVIL', adminToken);
      expect(bad.status).toBe(422);
      expect(bad.body.details.fieldErrors.method).toBeDefined();
      expect((await api.get('/admin/payments/pending?limit=101', adminToken)).status).toBe(422);
      expect((await api.get('/admin/payments/pending', a.client.token)).status).toBe(403);
      expect((await api.get('/admin/payments/pending')).status).toBe(401);
    },
  );

  it('a review item carries the bolivar amount, the payer phone and bank, the order to deliver and its client', async () => {
    const w = await waitingOrder('PAYMENT_FORM', pagoMovilFormId);
    const values = [
      { index: 1, value: '0105 - Mercantil' },
      { index: 2, value: '04241112233' },
      { index: 3, value: `PM-${w.orderId}` },
      { index: 4, value: '2026-11-20' },
    ];
    const reported = must(
      'report',
      await api.post(`/orders/${w.orderId}/payment/form`, w.client.token, { values }),
      200,
    ).payment;
    const queue = must(
      'queue',
      await api.get('/admin/payments/pending?method=PAYMENT_FORM&limit=100', adminToken),
      200,
    );
    const item = queue.items.find((i: { id: number }) => i.id === reported.id);
    const bs = must('payment', await api.get(`/orders/${w.orderId}/payment`, w.client.token), 200).payment
      .amount_bs_cents as number;
    expect(bs).toBeGreaterThan(0);
    expect(item).toMatchObject({
      amount_bs: bs / 100,
      reported: { phone: '04241112233', bank: '0105 - Mercantil' },
      order: {
        id: w.orderId,
        address: orderBody().address,
        liters_requested: orderBody().litersRequested,
        status: 'WAITING_FOR_PAYMENT',
      },
      client: { id: w.client.user.id, name: w.client.user.name ?? null, phone: w.client.user.phone },
    });
    // A payment not made on a form has no reported phone and bank.
    const e = await exchangeIntent();
    const all = must('queue', await api.get('/admin/payments/pending?limit=100', adminToken), 200);
    expect(all.items.find((i: { id: number }) => i.id === e.payment.id)).toMatchObject({ reported: null });
  });

  it('approve confirms the payment and the order; a second approval is 422 PaymentApprovalFailed', async () => {
    const { client, orderId, payment, order } = await reportedForm();
    const reason = 'Transfer seen in the bank statement';
    const r = await t
      .given()
      .when((api) => api.post(`/admin/payments/${payment.id}/approve`, adminToken, { reason }))
      .then(
        expectResponse(200),
        expectNewEvents(paymentStream(payment.id), [
          {
            type: 'PaymentConfirmed',
            data: {
              paymentId: payment.id,
              orderId,
              amountCents: Math.round(order.client_charged_usd * 100),
              by: 'admin',
              adminId,
              reason,
            },
          },
        ]),
        paid(orderId, payment.id),
      );
    expect(r.body).toEqual({
      payment: {
        id: payment.id,
        method: 'PAYMENT_FORM',
        status: 'CONFIRMED',
        confirmed_at: expect.any(String),
        amount_usd: order.client_charged_usd,
      },
      order: { id: orderId, status: 'CONFIRMED' },
    });
    await refused(
      t,
      (api) => api.post(`/admin/payments/${payment.id}/approve`, adminToken, { reason }),
      422,
      'PaymentApprovalFailed',
    );
    await refused(
      t,
      (api) => api.post(`/admin/payments/${payment.id}/reject`, adminToken, { reason: 'Changed my mind about it' }),
      422,
      'PaymentRejectionFailed',
    );
    const seen = must('GET order', await api.get(`/orders/${orderId}`, client.token), 200).order;
    expect(seen.status).toBe('CONFIRMED');
    expect(seen.delivery_pin).toMatch(/^\d{4}$/);
  });

  it('reject fails the payment with the reason and reopens the order for a new payment or method', async () => {
    const { client, orderId, payment } = await reportedForm();
    const reason = 'No transfer with that reference';
    const r = await t
      .given()
      .when((api) => api.post(`/admin/payments/${payment.id}/reject`, adminToken, { reason }))
      .then(
        expectResponse(200),
        expectNewEvents(paymentStream(payment.id), [
          { type: 'PaymentFailed', data: { paymentId: payment.id, orderId, by: 'admin', adminId, reason } },
        ]),
      );
    expect(r.body).toEqual({
      payment: {
        id: payment.id,
        method: 'PAYMENT_FORM',
        status: 'FAILED',
        failure_reason: 'No transfer with that reference',
      },
    });
    expect(must('GET order', await api.get(`/orders/${orderId}`, client.token), 200).order.status).toBe(
      'WAITING_FOR_PAYMENT',
    );
    must(
      'PATCH method',
      await api.patch(`/orders/${orderId}/payment-method`, client.token, { paymentMethod: 'EXCHANGE_PAY' }),
      200,
    );
    await refused(
      t,
      (api) => api.post(`/admin/payments/${payment.id}/approve`, adminToken, { reason: 'Found it after all, sorry' }),
      422,
      'PaymentApprovalFailed',
    );
  });

  it('reasons are 10 to 500 characters; unknown payments are 404; only admins may act', async () => {
    const { client, orderId, payment } = await reportedForm();
    // Padding does not count: the document's pattern says so beside minLength.
    for (const reason of [undefined, 'too short', '   too short   ', 'x'.repeat(501)]) {
      const body = reason === undefined ? {} : { reason };
      const r = await refused(
        t,
        (api) => api.post(`/admin/payments/${payment.id}/approve`, adminToken, body),
        422,
        'ValidationError',
      );
      expect(r.body.details.fieldErrors.reason).toBeDefined();
      await refused(t, (api) => api.post(`/admin/payments/${payment.id}/reject`, adminToken, body), 422);
    }
    const enough = { reason: 'Reason long enough' };
    await refused(t, (api) => api.post('/admin/payments/999999/approve', adminToken, enough), 404);
    await refused(t, (api) => api.post('/admin/payments/abc/reject', adminToken, enough), 404);
    await refused(t, (api) => api.post(`/admin/payments/${payment.id}/approve`, client.token, enough), 403);
    expect(must('GET payment', await api.get(`/orders/${orderId}/payment`, client.token), 200).payment.status).toBe(
      'PROCESSING',
    );
  });

  it('concurrent approve and reject: one wins, and payment and order agree', async () => {
    const { client, orderId, payment } = await reportedForm();
    const deciding = race((api) => [
      api.post(`/admin/payments/${payment.id}/approve`, adminToken, { reason: 'Transfer seen in the bank' }),
      api.post(`/admin/payments/${payment.id}/reject`, adminToken, { reason: 'Transfer not found at all' }),
    ]);
    // One decision per 200: a confirmation, a rejection, or a rejection then an approval (a FAILED payment is
    // still reviewable); never a rejection after the confirmation.
    await t
      .given()
      .when(deciding.send)
      .then(async ({ newEventsOf }) => {
        const decisions = (await newEventsOf(paymentStream(payment.id))).map((e) => e.type);
        expect([['PaymentConfirmed'], ['PaymentFailed'], ['PaymentFailed', 'PaymentConfirmed']]).toContainEqual(
          decisions,
        );
        expect(deciding.responses.filter((r) => r.status === 200)).toHaveLength(decisions.length);
      });
    const [approve, reject] = deciding.responses;
    const finalPayment = must('GET payment', await api.get(`/orders/${orderId}/payment`, client.token), 200).payment;
    const finalOrder = must('GET order', await api.get(`/orders/${orderId}`, client.token), 200).order;
    expect([approve.status, reject.status].filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(finalOrder.status).toBe(finalPayment.status === 'CONFIRMED' ? 'CONFIRMED' : 'WAITING_FOR_PAYMENT');
  });
});
