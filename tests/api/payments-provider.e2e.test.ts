import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAdmin, signInClient } from '../support/actors.js';
import { call, onlineDriver, orderBody } from '../support/orderFlows.js';
import { startTestService, type TestService } from '../support/testService.js';

/**
 * The HTTP payment provider adapters (PAYMENT_PROVIDER_URL / PAYMENT_PROVIDER_KEY) against a local fake
 * provider: what they send, and how the service answers the provider's successes, refusals and failures.
 */
interface Seen {
  path: string;
  authorization: string | undefined;
  body: Record<string, any>;
}

type Answer = { status: number; body: unknown };
const answers: Record<string, (body: Record<string, any>) => Answer> = {};
const seen: Seen[] = [];
let fake: Server;
let t: TestService;
let api: ReturnType<typeof call>;
const SECRET = 'provider-test-secret';
const KEY = 'provider-api-key';

const readBody = async (req: IncomingMessage): Promise<Record<string, any>> => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
};

beforeAll(async () => {
  fake = createServer(async (req, res) => {
    const body = await readBody(req);
    const path = req.url ?? '';
    seen.push({ path, authorization: req.headers.authorization, body });
    const answer = answers[path]?.(body) ?? { status: 404, body: { message: 'no such endpoint' } };
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  const { port } = fake.address() as AddressInfo;
  t = await startTestService({
    env: {
      OFFICIAL_RATE_VES: '36.5',
      PAYMENT_PROVIDER_URL: `http://127.0.0.1:${port}/v1/`,
      PAYMENT_PROVIDER_KEY: KEY,
      PAYMENT_WEBHOOK_SECRET: SECRET,
    },
  });
  api = call(t);
  await signInAdmin(t);
}, 60_000);

afterAll(async () => {
  await t?.stop();
  await new Promise((resolve) => fake?.close(resolve));
});

const must = (what: string, r: { status: number; body: any }, status: number) => {
  if (r.status !== status) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
};

const waitingOrder = async (method: string) => {
  const client = await signInClient(t);
  const driver = await onlineDriver(t);
  const created = must(
    'POST /orders',
    await api.post('/orders', client.token, orderBody({ paymentMethod: method })),
    201,
  );
  const offer = must('accept', await api.post(`/orders/${created.order.id}/accept`, driver.token, {}), 201).offer;
  const order = must('accept offer', await api.post(`/orders/offers/${offer.id}/accept`, client.token), 200).order;
  return { client, orderId: order.id as number, order };
};

const payer = { bank_code: '0105', id_number: 'V20111222', phone: '04125556677', name: 'Luis Rojas' };
const lastSeen = (path: string) => [...seen].reverse().find((s) => s.path === path)!;
const sign = (raw: string) => `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;

describe('HTTP payment providers', () => {
  it('EXCHANGE_PAY: the provider creates the intent and its checkout link', async () => {
    answers['/v1/exchangepay/intents'] = (b) => ({
      status: 201,
      body: { provider_ref: `xp-${b.reference}`, checkout_url: `https://pay.example/c/${b.reference}` },
    });
    const { client, orderId, order } = await waitingOrder('EXCHANGE_PAY');
    const r = must(
      'intent',
      await api.post(`/orders/${orderId}/payment`, client.token, { method: 'EXCHANGE_PAY' }),
      200,
    );
    expect(r.checkoutUrl).toBe(`https://pay.example/c/${r.payment.id}`);
    expect(r.payment.provider_ref).toBe(`xp-${r.payment.id}`);
    const sent = lastSeen('/v1/exchangepay/intents');
    expect(sent.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.body).toEqual({
      reference: String(r.payment.id),
      order_reference: String(orderId),
      amount_cents: Math.round(order.client_charged_usd * 100),
      currency: 'USD',
    });
  });

  it('EXCHANGE_PAY: a provider failure is 400 PaymentError and opens no intent', async () => {
    answers['/v1/exchangepay/intents'] = () => ({ status: 503, body: { message: 'maintenance' } });
    const { client, orderId } = await waitingOrder('EXCHANGE_PAY');
    const r = await api.post(`/orders/${orderId}/payment`, client.token, { method: 'EXCHANGE_PAY' });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('PaymentError');
    expect((await api.get(`/orders/${orderId}/payment`, client.token)).status).toBe(404);
  });

  it('PAYPROV_DI: OTP request, a debit the provider confirms later, then the webhook confirms', async () => {
    answers['/v1/payprov/otp'] = (b) => ({ status: 200, body: { provider_ref: `di-${b.reference}` } });
    answers['/v1/payprov/debit'] = () => ({ status: 202, body: { status: 'PENDING', reference: 'BANK-778899' } });
    const { client, orderId, order } = await waitingOrder('PAYPROV_DI');
    const prepared = must(
      'prepare',
      await api.post(`/orders/${orderId}/payment/prepare`, client.token, payer),
      200,
    ).payment;
    const amountCents = Math.round(order.client_charged_usd * 100);
    expect(lastSeen('/v1/payprov/otp').body).toEqual({
      reference: String(prepared.id),
      amount_cents: amountCents,
      bank_code: '0105',
      id_number: 'V20111222',
      phone: '04125556677',
      name: 'Luis Rojas',
    });
    expect(prepared.provider_ref).toBe(`di-${prepared.id}`);

    const reported = must(
      'report',
      await api.post(`/orders/${orderId}/payment/report`, client.token, { ...payer, otp: '4321' }),
      200,
    ).payment;
    expect(reported.status).toBe('PROCESSING');
    expect(lastSeen('/v1/payprov/debit').body).toMatchObject({
      provider_ref: `di-${prepared.id}`,
      otp: '4321',
      amount_cents: amountCents,
    });
    // The reported debit holds the order: its method can no longer change.
    expect(
      (await api.patch(`/orders/${orderId}/payment-method`, client.token, { paymentMethod: 'EXCHANGE_PAY' })).status,
    ).toBe(409);

    const raw = JSON.stringify({
      id: 'pp-evt-1',
      type: 'payment.confirmed',
      data: { reference: `di-${prepared.id}`, amount_cents: amountCents },
    });
    const hook = await t.request('POST', '/api/v1/payments/webhook/payprov', {
      raw,
      headers: { 'x-signature': sign(raw) },
    });
    expect(hook.status).toBe(204);
    expect(must('GET payment', await api.get(`/orders/${orderId}/payment`, client.token), 200).payment.status).toBe(
      'CONFIRMED',
    );
    expect(must('GET order', await api.get(`/orders/${orderId}`, client.token), 200).order.status).toBe('CONFIRMED');
    // The auditor's answer to who confirmed it: the provider, through the event its webhook recorded.
    const stream = await t.service.ctx.store.readStream(`payment-${prepared.id}`);
    const recorded = stream.find((e) => e.type === 'PaymentProviderEventRecorded')!;
    const confirmed = stream.filter((e) => e.type === 'PaymentConfirmed');
    expect(confirmed).toHaveLength(1);
    expect(confirmed[0].data).toMatchObject({ by: 'provider', adminId: null });
    expect(recorded.metadata.actor).toEqual({ id: null, role: 'PROVIDER' });
  });

  it(
    'PAYPROV_DI: a declined debit is 400 PaymentError and fails ' +
      'the attempt; an unanswered OTP request changes nothing',
    async () => {
      answers['/v1/payprov/otp'] = (b) => ({ status: 200, body: { provider_ref: `di-${b.reference}` } });
      answers['/v1/payprov/debit'] = () => ({ status: 422, body: { message: 'Insufficient funds' } });
      const { client, orderId } = await waitingOrder('PAYPROV_DI');
      must('prepare', await api.post(`/orders/${orderId}/payment/prepare`, client.token, payer), 200);
      const declined = await api.post(`/orders/${orderId}/payment/report`, client.token, { ...payer, otp: '123456' });
      expect(declined.status).toBe(400);
      expect(declined.body).toMatchObject({ error: 'PaymentError', message: 'Insufficient funds' });
      expect(must('GET payment', await api.get(`/orders/${orderId}/payment`, client.token), 200).payment).toMatchObject(
        {
          status: 'FAILED',
          failure_reason: 'Insufficient funds',
        },
      );
      expect(must('GET order', await api.get(`/orders/${orderId}`, client.token), 200).order.status).toBe(
        'WAITING_FOR_PAYMENT',
      );

      answers['/v1/payprov/otp'] = () => ({ status: 500, body: {} });
      const down = await api.post(`/orders/${orderId}/payment/prepare`, client.token, payer);
      expect(down.status).toBe(400);
      expect(down.body.error).toBe('PaymentError');
      const current = must('GET payment', await api.get(`/orders/${orderId}/payment`, client.token), 200).payment;
      expect(current).toMatchObject({ status: 'PENDING', provider_ref: null });
    },
  );
});
