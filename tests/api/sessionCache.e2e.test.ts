import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInClient } from '../support/actors.js';
import { startInstanceBeside, startTestService, type TestService } from '../support/testService.js';
import { ManualClock } from '../../infra/clock.js';
import { SESSION_CACHE_MS } from '../../infra/identity/authenticator.js';

/**
 * App sessions are answered from a cache of each instance (docs/decisions/0045-caches-and-invalidation.md):
 * a revoked token is refused at once by the instance that revoked it, and by every other instance as soon as
 * the bus tells it, long before the cache entry would have run out.
 */
describe('a cached app session ends when it is revoked', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('is refused on the next request after logout, though it was just answered from the cache', async () => {
    const client = await signInClient(t);
    expect((await t.request('GET', '/api/v1/me', { token: client.token })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/me', { token: client.token })).status).toBe(200);
    expect((await t.request('POST', '/api/v1/auth/logout', { token: client.token })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/me', { token: client.token })).status).toBe(401);
  });

  it('does not keep a session that a lookup in flight read before its sessions were forgotten', async () => {
    const client = await signInClient(t);
    const { pool, auth } = t.service.ctx;
    // The lookup is held on a lock of the sessions' table, so that the logout's forget lands while it is in flight.
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE app_sessions IN ACCESS EXCLUSIVE MODE');
      const inFlight = t.request('GET', '/api/v1/me', { token: client.token });
      await expect
        .poll(
          async () =>
            (
              await pool.query(
                `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database
                  WHERE NOT l.granted AND d.datname = current_database()`,
              )
            ).rows[0].n,
        )
        .toBeGreaterThan(0);
      auth.forget({ role: 'USER', id: client.user.id });
      await holder.query('COMMIT');
      expect((await inFlight).status).toBe(200);
    } finally {
      holder.release();
    }
    // Revoked without a word to the cache: only a session read again from the database sees it.
    await pool.query('UPDATE app_sessions SET revoked_at = now() WHERE user_id = $1', [client.user.id]);
    expect((await t.request('GET', '/api/v1/me', { token: client.token })).status).toBe(401);
  });

  it('after a refresh, the old token is refused and the new one accepted', async () => {
    const client = await signInClient(t);
    expect((await t.request('GET', '/api/v1/me', { token: client.token })).status).toBe(200);
    const refreshed = await t.request('POST', '/api/v1/auth/refresh', { token: client.token });
    expect(refreshed.status).toBe(200);
    expect((await t.request('GET', '/api/v1/me', { token: client.token })).status).toBe(401);
    expect((await t.request('GET', '/api/v1/me', { token: refreshed.body.token })).status).toBe(200);
  });
});

describe.runIf(process.env.NATS_URL && process.env.DATABASE_URL)(
  'a cached app session across instances (one database, one bus)',
  () => {
    let a: Awaited<ReturnType<typeof startTestService>>;
    let b: TestService;
    beforeAll(async () => {
      a = await startTestService();
      b = await startInstanceBeside(a, { roles: ['api'] });
    });
    afterAll(async () => {
      await b?.stop();
      await a?.stop();
    });

    it('a token logged out on instance A is refused by instance B, which had it in its cache', async () => {
      const client = await signInClient(a);
      expect((await b.request('GET', '/api/v1/me', { token: client.token })).status).toBe(200);
      expect((await a.request('POST', '/api/v1/auth/logout', { token: client.token })).status).toBe(200);
      // The bus carries the news in milliseconds; the cache alone would answer for SESSION_CACHE_MS.
      await expect
        .poll(async () => (await b.request('GET', '/api/v1/me', { token: client.token })).status, {
          timeout: SESSION_CACHE_MS / 5,
          interval: 20,
        })
        .toBe(401);
    });
  },
);

/**
 * The bound when the bus says nothing: instance B is of another bus prefix, so it never hears A's news (as
 * if the message were lost, or the deployment ran on the in-process bus). B may answer from its cache, but
 * no longer than SESSION_CACHE_MS, well within the 2-minute grace DOMAIN.md allows a revoked token.
 */
describe('a cached app session on an instance that hears nothing of its revocation', () => {
  let a: Awaited<ReturnType<typeof startTestService>>;
  let b: TestService;
  const clockOfB = new ManualClock(new Date());
  beforeAll(async () => {
    a = await startTestService();
    b = await startTestService({
      roles: ['api'],
      clock: clockOfB,
      shared: { databaseUrl: a.databaseUrl, busPrefix: `${a.busPrefix}deaf` },
    });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('is refused by that instance once its cache entry runs out, within the revocation grace', async () => {
    expect(SESSION_CACHE_MS).toBeLessThanOrEqual(2 * 60_000);
    const client = await signInClient(a);
    expect((await b.request('GET', '/api/v1/me', { token: client.token })).status).toBe(200);
    expect((await a.request('POST', '/api/v1/auth/logout', { token: client.token })).status).toBe(200);
    expect((await a.request('GET', '/api/v1/me', { token: client.token })).status).toBe(401);
    clockOfB.advance(SESSION_CACHE_MS);
    expect((await b.request('GET', '/api/v1/me', { token: client.token })).status).toBe(401);
  });
});
