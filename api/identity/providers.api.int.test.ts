import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniquePhone } from '../../tests/support/actors.js';
import {
  expectNothingAppended,
  expectResponse,
  refused,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../tests/support/apiSpecification.js';
import { startSmtpStandIn } from '../../tests/support/providerStandIns/smtp.js';
import { startTwilioStandIn } from '../../tests/support/providerStandIns/twilio.js';
import { capturedLogger, PRODUCTION_ENV, TEST_SUPER_ADMIN } from '../../tests/support/testService.js';

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

/** Asks for a login code: 200, and nothing appended. */
const requestCode = (t: ApiUnderTest, phone: string) =>
  t
    .given()
    .when((api) => api.post('/auth/otp/request', undefined, { phone }))
    .then(expectResponse(200), expectNothingAppended);

/** Recovers the super admin's password with the token the recovery mail ends with. */
const recoverWith = async (t: ApiUnderTest, mailText: string, password: string) => {
  const token = /: (\S+)$/.exec(mailText.trim())![1];
  const recovered = await t
    .given()
    .when((api) =>
      api.post('/admin/auth/recover-password', undefined, { email: TEST_SUPER_ADMIN.email, token, password }),
    )
    .then(expectResponse(204), expectNothingAppended);
  expect(recovered.status).toBe(204);
};

/**
 * Codes, accounts and sessions are kept as state, not as events: a code sent, a client signed in or an admin's
 * password recovered appends nothing, and neither does a refusal.
 */
describe('identity in production mode', () => {
  let t: ApiUnderTest;
  beforeAll(async () => {
    t = await startApiUnderTest({ env: PRODUCTION_ENV });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('never returns the code; dev endpoints and the outbox answer 404', async () => {
    const phone = uniquePhone();
    const r = await requestCode(t, phone);
    expect(r.body).toEqual({ sent: true, mocked: false });
    for (const [m, p, body] of [
      ['get', `/auth/dev-lookup?phone=${encodeURIComponent(phone)}`, undefined],
      ['post', '/auth/dev-token', { userId: 1, app: 'client' }],
      ['post', '/auth/dev-token', { nonsense: true }],
      ['get', `/dev/outbox?to=${encodeURIComponent(phone)}`, undefined],
    ] as const) {
      const res = await refused(t, (api) => api[m](p, undefined, body), 404, 'RouteNotFound');
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
    const v = await t
      .given()
      .when((api) => api.post('/auth/otp/verify', undefined, { phone, code }))
      .then(expectResponse(200), expectNothingAppended);
    expect(v.body).not.toHaveProperty('code');
  });

  it('rate limits hold by default: the 4th code request in 10 minutes is refused', async () => {
    const phone = uniquePhone();
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push(
        (
          await t
            .given()
            .when((api) => api.post('/auth/otp/request', undefined, { phone }))
            .then(expectResponse(200), expectNothingAppended)
        ).status,
      );
    statuses.push((await refused(t, (api) => api.post('/auth/otp/request', undefined, { phone }), 429)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describe('identity with the HTTP SMS and mail adapters', () => {
  let t: ApiUnderTest;
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
    const r = await requestCode(t, phone);
    expect(r.body).toMatchObject({ sent: true, mocked: false });
    const sent = sms.received.at(-1)!;
    expect(sent).toMatchObject({ path: '/sms', auth: 'Bearer sms-key', body: { to: phone } });
    expect(sent.body.message).toContain(r.body.code);
    const v = await t
      .given()
      .when((api) => api.post('/auth/otp/verify', undefined, { phone, code: r.body.code }))
      .then(expectResponse(200), expectNothingAppended);
    expect(v.status).toBe(200);
  });

  it('a failing provider is 429 SmsSendError and leaves no usable code', async () => {
    sms.answer(503);
    const phone = uniquePhone();
    const r = await refused(t, (api) => api.post('/auth/otp/request', undefined, { phone }), 429, 'SmsSendError');
    sms.answer(200);
    expect(r.status).toBe(429);
    expect(r.body.error).toBe('SmsSendError');
    const code = /(\d{6})/.exec(sms.received.at(-1)!.body.message)![1];
    const unusable = await refused(
      t,
      (api) => api.post('/auth/otp/verify', undefined, { phone, code }),
      401,
      'InvalidOtp',
    );
    expect(unusable.body.error).toBe('InvalidOtp');
  });

  it('mails the recovery token through the provider', async () => {
    const r = await t
      .given()
      .when((api) => api.post(`/admin/auth/password-reset/${TEST_SUPER_ADMIN.email}`))
      .then(expectResponse(204), expectNothingAppended);
    expect(r.status).toBe(204);
    const sent = mail.received.at(-1)!;
    expect(sent).toMatchObject({
      path: '/mail',
      auth: 'Bearer mail-key',
      body: { to: TEST_SUPER_ADMIN.email, subject: expect.any(String) },
    });
    await recoverWith(t, sent.body.text, 'brand-new-pass-1');
  });
});

describe("identity through Twilio's Messages API and an SMTP relay (STARTTLS)", () => {
  const dir = mkdtempSync(join(tmpdir(), 'relay-ca-'));
  const log = capturedLogger('debug');
  let t: ApiUnderTest;
  let twilio: Awaited<ReturnType<typeof startTwilioStandIn>>;
  let relay: Awaited<ReturnType<typeof startSmtpStandIn>>;
  beforeAll(async () => {
    twilio = await startTwilioStandIn();
    relay = await startSmtpStandIn('starttls');
    writeFileSync(join(dir, 'relay-ca.pem'), relay.ca);
    t = await startApiUnderTest({
      logger: log.logger,
      env: {
        TWILIO_ACCOUNT_SID: twilio.account.sid,
        TWILIO_AUTH_TOKEN: twilio.account.authToken,
        TWILIO_FROM: twilio.account.number,
        TWILIO_API_URL: twilio.url,
        SMTP_URL: relay.url(),
        SMTP_CA_FILE: join(dir, 'relay-ca.pem'),
        MAIL_FROM: 'Agua <no-reply@agua.example>',
      },
    });
  });
  afterAll(async () => {
    await t?.stop();
    await twilio?.close();
    await relay?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('texts the code through Twilio; a number Twilio refuses is 429 SmsSendError', async () => {
    const phone = uniquePhone();
    const r = await requestCode(t, phone);
    expect(r.body).toMatchObject({ sent: true, mocked: false });
    expect(twilio.messages.at(-1)).toMatchObject({ to: phone, from: twilio.account.number });
    expect(twilio.messages.at(-1)!.body).toContain(r.body.code);

    const stopped = uniquePhone();
    twilio.blocked.add(stopped);
    const refusedSms = await refused(
      t,
      (api) => api.post('/auth/otp/request', undefined, { phone: stopped }),
      429,
      'SmsSendError',
    );
    expect(refusedSms.body.error).toBe('SmsSendError');
  });

  it('mails the recovery token through the relay, encrypted and authenticated', async () => {
    await t
      .given()
      .when((api) => api.post(`/admin/auth/password-reset/${TEST_SUPER_ADMIN.email}`))
      .then(expectResponse(204), expectNothingAppended);
    const sent = relay.received.at(-1)!;
    expect(sent).toMatchObject({
      from: 'no-reply@agua.example',
      to: [TEST_SUPER_ADMIN.email],
      encrypted: true,
      user: relay.login.user,
    });
    await recoverWith(t, sent.text!, 'brand-new-pass-2');
  });

  it('writes no credential to the log', () => {
    const lines = log.lines();
    expect(lines).toContain('Twilio error 21610');
    const basic = Buffer.from(`${twilio.account.sid}:${twilio.account.authToken}`).toString('base64');
    for (const secret of [twilio.account.authToken, basic, relay.login.pass]) expect(lines).not.toContain(secret);
  });
});
