import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../infra/clock.js';
import { orderBody } from '../support/orderFlows.js';
import { startFcmStandIn } from '../support/providerStandIns/fcm.js';
import { startSmtpStandIn } from '../support/providerStandIns/smtp.js';
import { startTwilioStandIn } from '../support/providerStandIns/twilio.js';
import { freshDatabaseUrl, PRODUCTION_ENV, TEST_SUPER_ADMIN } from '../support/testService.js';
import {
  embeddedDataDir,
  freePort,
  removeEmbeddedDir,
  request,
  spawnService,
  waitForHealth,
  waitUntil,
  type ChildService,
} from './faults.support.js';

/**
 * Issue #28, item 5: a started process rehearses order flows before /ready says yes (app/warmUp.ts), on
 * private temporary copies of its tables. It is started as production starts it (no development routes,
 * no OTP code in answers), on the embedded default or on DATABASE_URL's server when the suite has one.
 */
describe('the start-up warm-up', { timeout: 180_000 }, () => {
  const cleanups: (() => Promise<void>)[] = [];
  const children: ChildService[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) {
      if (c.child.exitCode === null) {
        c.child.kill('SIGKILL');
        await c.exited;
      }
    }
    for (const clean of cleanups.splice(0)) await clean();
  });

  /** The service's database as the test reads it directly, and the settings that point the service at it. */
  const database = async (): Promise<{ env: Record<string, string>; connect: () => pg.Client }> => {
    if (process.env.DATABASE_URL) {
      const fresh = await freshDatabaseUrl();
      cleanups.push(fresh.drop);
      return { env: { DATABASE_URL: fresh.url }, connect: () => new pg.Client({ connectionString: fresh.url }) };
    }
    const dir = embeddedDataDir('warm-up-');
    cleanups.push(() => removeEmbeddedDir(dir));
    return {
      env: { EMBEDDED_DB_DIR: dir },
      connect: () => new pg.Client({ host: dir, port: 5432, user: 'postgres', database: 'postgres' }),
    };
  };

  /** The warm-up's log line once it has run, whichever way it ended. */
  const warmUpOutcome = async (service: ChildService): Promise<{ msg: string; flows?: number; reason?: string }> => {
    await waitUntil(
      () => `the warm-up\n${service.output().slice(-2000)}`,
      async () => /"msg":"warm(ed up|-up stopped)/.test(service.output()),
    );
    const line = service
      .output()
      .split('\n')
      .find((l) => /"msg":"warm(ed up|-up stopped)/.test(l))!;
    return JSON.parse(line);
  };

  it('says not ready until it has rehearsed, leaves no row, id or table behind, and serves a first order', async () => {
    const db = await database();
    const service = spawnService({
      ...PRODUCTION_ENV,
      ...db.env,
      PORT: String(await freePort()),
      WARM_UP_FLOWS: '24',
    });
    children.push(service);
    await waitForHealth(service);
    // Up, but still rehearsing: ready only once the warm-up has run.
    const early = await request(service.client.baseUrl, 'GET', '/ready');
    expect(early.status).toBe(503);
    expect(early.body.checks).toMatchObject({ database: true, warmUp: false });
    expect((await warmUpOutcome(service)).flows).toBe(24);
    const ready = await request(service.client.baseUrl, 'GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.warmUp).toBe(true);

    const sql = db.connect();
    await sql.connect();
    try {
      const count = async (query: string) => Number((await sql.query(query)).rows[0].n);
      // 24 orders, their clients, drivers and super admin were written to the rehearsal's copies only.
      expect(await count("SELECT count(*) AS n FROM events WHERE stream_id LIKE 'order-%'")).toBe(0);
      expect(await count('SELECT count(*) AS n FROM users')).toBe(0);
      expect(await count("SELECT count(*) AS n FROM admins WHERE email LIKE '%rehearsal%'")).toBe(0);
      expect(await count('SELECT count(*) AS n FROM order_views')).toBe(0);
      // Its sequences were copies too, and its temporary tables go with its session: its backend drops them
      // as it exits, a moment after the warm-up has closed it.
      const orderSeq = (await sql.query('SELECT is_called FROM order_id_seq')).rows[0];
      expect(orderSeq.is_called).toBe(false);
      await waitUntil(
        'the warm-up session to end',
        async () => (await count("SELECT count(*) AS n FROM pg_class WHERE relpersistence = 't'")) === 0,
        10_000,
      );

      // A new production database has no rate until an admin records one (the rehearsal's went with it).
      const root = await request(service.client.baseUrl, 'POST', '/api/v1/admin/auth/login', {
        body: TEST_SUPER_ADMIN,
      });
      const rate = await request(service.client.baseUrl, 'POST', '/api/v1/admin/exchange-rates', {
        token: root.body.access_token,
        body: { currency: 'VES', rate: 36.5 },
      });
      expect(rate.status).toBe(201);
      // The first customer after the warm-up signs in (the code reaches the SMS simulator's outbox, never
      // the answer, in production) and gets order number 1.
      const phone = '+584125550001';
      const asked = await request(service.client.baseUrl, 'POST', '/api/v1/auth/otp/request', { body: { phone } });
      expect(asked.status).toBe(200);
      expect(asked.body.code).toBeUndefined();
      const sent = await sql.query<{ data: { code: string } }>(
        'SELECT data FROM dev_outbox WHERE recipient = $1 ORDER BY id DESC LIMIT 1',
        [phone],
      );
      const verified = await request(service.client.baseUrl, 'POST', '/api/v1/auth/otp/verify', {
        body: { phone, code: sent.rows[0].data.code, app: 'client' },
      });
      expect(verified.status).toBe(200);
      const token = verified.body.token as string;
      expect(
        (await request(service.client.baseUrl, 'PATCH', '/api/v1/me', { token, body: { name: 'Ana' } })).status,
      ).toBe(200);
      const created = await request(service.client.baseUrl, 'POST', '/api/v1/orders', { token, body: orderBody() });
      expect(created.status).toBe(201);
      expect(created.body.order.id).toBe(1);
    } finally {
      await sql.end();
    }
  });

  it('never calls an outside provider, with every provider configured as production runs them', async () => {
    // One stand-in for the generic gateways: it answers anything, and counts what reaches it; the real
    // protocols' stand-ins keep what reaches them.
    const reached: string[] = [];
    const provider = createServer((req, res) => {
      reached.push(`${req.method} ${req.url}`);
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => provider.close(() => resolve())));
    const url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
    const providers = Object.fromEntries(
      ['PAYMENT', 'PAYOUT'].flatMap((name) => [
        [`${name}_PROVIDER_URL`, `${url}/${name.toLowerCase()}`],
        [`${name}_PROVIDER_KEY`, `${name.toLowerCase()}-provider-key`],
      ]),
    );
    const [fcm, twilio, relay] = await Promise.all([
      startFcmStandIn(systemClock),
      startTwilioStandIn(),
      startSmtpStandIn('tls'),
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'warm-up-'));
    cleanups.push(fcm.close, twilio.close, relay.close, async () => rmSync(dir, { recursive: true, force: true }));
    const { path: keyFile } = await fcm.writeServiceAccount(dir, 'warm-up');
    const { ALLOW_SIMULATED_PROVIDERS: _simulators, ...production } = PRODUCTION_ENV;
    const db = await database();
    const service = spawnService({
      ...production,
      ...providers,
      TWILIO_ACCOUNT_SID: twilio.account.sid,
      TWILIO_AUTH_TOKEN: twilio.account.authToken,
      TWILIO_FROM: twilio.account.number,
      TWILIO_API_URL: twilio.url,
      SMTP_URL: relay.url(),
      MAIL_FROM: 'no-reply@agua.example',
      GOOGLE_APPLICATION_CREDENTIALS: keyFile,
      FCM_API_URL: fcm.url,
      MAPS_PROVIDER_URL: `${url}/maps`,
      MAPS_API_KEY: 'maps-key',
      ...db.env,
      PORT: String(await freePort()),
      WARM_UP_FLOWS: '12',
    });
    children.push(service);
    await waitForHealth(service);
    expect(await warmUpOutcome(service)).toMatchObject({ msg: 'warmed up', flows: 12 });
    // Sign-ins, a driver's approval and 12 deliveries went to the rehearsal's simulators only.
    expect(reached).toEqual([]);
    expect([twilio.messages, relay.received, fcm.exchanges, fcm.sent]).toEqual([[], [], [], []]);
  });
});
