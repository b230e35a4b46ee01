import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniquePhone } from '../../tests/support/actors.js';
import { startApiUnderTest } from '../../tests/support/apiSpecification.js';
import { PRODUCTION_ENV, TEST_SUPER_ADMIN, type TestService } from '../../tests/support/testService.js';

/** A local stand-in for the SMS and mail providers: records requests, answers with the status it is told. */
const fakeProvider = async () => {
  const received: { path: string; auth: string | undefined; body: any }[] = [];
  let status = 200;
  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let s = '';
      req.on('data', (c) => (s += c));
      req.on('end', () => resolve(s));
    });
  const server: Server = createServer(async (req, res) => {
    received.push({ path: req.url ?? '', auth: req.headers.authorization, body: JSON.parse(await readBody(req)) });
    res.statusCode = status;
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    answer: (s: number) => (status = s),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
};

describe('identity in production mode', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startApiUnderTest({ env: PRODUCTION_ENV });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('never returns the code; dev endpoints and the outbox answer 404', async () => {
    const phone = uniquePhone();
    const r = await t.request('POST', '/api/v1/auth/otp/request', { body: { phone } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ sent: true, mocked: false });
    for (const [m, p, body] of [
      ['GET', `/api/v1/auth/dev-lookup?phone=${encodeURIComponent(phone)}`, undefined],
      ['POST', '/api/v1/auth/dev-token', { userId: 1, app: 'client' }],
      ['POST', '/api/v1/auth/dev-token', { nonsense: true }],
      ['GET', `/api/v1/dev/outbox?to=${encodeURIComponent(phone)}`, undefined],
    ] as const) {
      const res = await t.request(m, p, { body });
      expect(res.status, p).toBe(404);
      expect(res.body.error).toBe('RouteNotFound');
    }
    // …and the production document lists none of them.
    const doc = await t.request('GET', '/api/v1/openapi.json');
    expect(
      Object.keys(doc.body.paths).filter((path) => path.startsWith('/dev/') || path.startsWith('/auth/dev-')),
    ).toEqual([]);
    // The SMS itself went out (the simulator records it; read here only because production hides it).
    const [sms] = await t.service.ctx.outbox.list(phone);
    const code = /(\d{6})/.exec(sms.body)![1];
    const v = await t.request('POST', '/api/v1/auth/otp/verify', { body: { phone, code } });
    expect(v.status).toBe(200);
    expect(v.body).not.toHaveProperty('code');
  });

  it('rate limits hold by default: the 4th code request in 10 minutes is refused', async () => {
    const phone = uniquePhone();
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await t.request('POST', '/api/v1/auth/otp/request', { body: { phone } })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describe('identity with the HTTP SMS and mail adapters', () => {
  let t: TestService;
  let sms: Awaited<ReturnType<typeof fakeProvider>>;
  let mail: Awaited<ReturnType<typeof fakeProvider>>;
  beforeAll(async () => {
    sms = await fakeProvider();
    mail = await fakeProvider();
    t = await startApiUnderTest({
      env: {
        SMS_PROVIDER_URL: `${sms.url}/sms`,
        SMS_PROVIDER_KEY: 'sms-key',
        MAIL_PROVIDER_URL: `${mail.url}/mail`,
        MAIL_PROVIDER_KEY: 'mail-key',
      },
    });
  });
  afterAll(async () => {
    await t?.stop();
    await sms?.close();
    await mail?.close();
  });

  it('sends the code through the provider (not mocked)', async () => {
    const phone = uniquePhone();
    const r = await t.request('POST', '/api/v1/auth/otp/request', { body: { phone } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ sent: true, mocked: false });
    const sent = sms.received.at(-1)!;
    expect(sent).toMatchObject({ path: '/sms', auth: 'Bearer sms-key', body: { to: phone } });
    expect(sent.body.message).toContain(r.body.code);
    expect((await t.request('POST', '/api/v1/auth/otp/verify', { body: { phone, code: r.body.code } })).status).toBe(
      200,
    );
  });

  it('a failing provider is 429 SmsSendError and leaves no usable code', async () => {
    sms.answer(503);
    const phone = uniquePhone();
    const r = await t.request('POST', '/api/v1/auth/otp/request', { body: { phone } });
    sms.answer(200);
    expect(r.status).toBe(429);
    expect(r.body.error).toBe('SmsSendError');
    const code = /(\d{6})/.exec(sms.received.at(-1)!.body.message)![1];
    expect((await t.request('POST', '/api/v1/auth/otp/verify', { body: { phone, code } })).body.error).toBe(
      'InvalidOtp',
    );
  });

  it('mails the recovery token through the provider', async () => {
    const r = await t.request('POST', `/api/v1/admin/auth/password-reset/${TEST_SUPER_ADMIN.email}`);
    expect(r.status).toBe(204);
    const sent = mail.received.at(-1)!;
    expect(sent).toMatchObject({
      path: '/mail',
      auth: 'Bearer mail-key',
      body: { to: TEST_SUPER_ADMIN.email, subject: expect.any(String) },
    });
    const token = /: (\S+)$/.exec(sent.body.text)![1];
    const recovered = await t.request('POST', '/api/v1/admin/auth/recover-password', {
      body: { email: TEST_SUPER_ADMIN.email, token, password: 'brand-new-pass-1' },
    });
    expect(recovered.status).toBe(204);
  });
});
