import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVELOPMENT_SECRETS } from '../../infra/productionPolicy.js';
import { signInClient } from '../../tests/support/actors.js';
import {
  expectError,
  expectNothingAppended,
  expectResponse,
  refused,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../tests/support/apiSpecification.js';
import { isDirectLoopback } from './directLoopback.js';

/**
 * A service started without APP_ENV (development) and without JWT_SECRET (docs/decisions/0046-money-risk-limits.md):
 * nothing signed with the repository's development secret is accepted, and the development doors answer only
 * requests made directly from the loopback interface. Tokens, codes and the outbox are state: nothing here appends
 * an event.
 */
describe('development without a JWT secret and behind a proxy', () => {
  let api: ApiUnderTest;
  beforeAll(async () => {
    api = await startApiUnderTest({ env: { APP_ENV: 'development', JWT_SECRET: '' } });
  });
  afterAll(async () => {
    await api?.stop();
  });

  it('refuses a super-admin JWT signed with the development secret in the repository', async () => {
    const root = await api
      .given()
      .when((r) => r.post('/admin/auth/login', undefined, { email: 'root@test.local', password: 'irrelevant' }))
      .then(expectNothingAppended);
    expect(root.status).not.toBe(500);
    const now = Math.floor(Date.now() / 1000);
    const forged = await new SignJWT({ oat: now, iat_ms: now * 1000, typ: 'admin' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject('1')
      .setJti('00000000-0000-4000-8000-000000000000')
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(new TextEncoder().encode(DEVELOPMENT_SECRETS.JWT_SECRET));
    await refused(api, (r) => r.get('/admin/customers', forged), 401, 'Unauthorized');
    expect(api.service.ctx.config.JWT_SECRET).not.toBe(DEVELOPMENT_SECRETS.JWT_SECRET);
  });

  it('opens the development doors to a direct loopback request only: a forwarded one gets 404 RouteNotFound', async () => {
    const client = await signInClient(api);
    const doors = [
      ['POST', '/api/v1/auth/dev-token', { userId: client.user.id, app: 'client' }],
      ['GET', `/api/v1/auth/dev-lookup?phone=${encodeURIComponent(client.user.phone)}`, undefined],
      ['GET', `/api/v1/dev/outbox?to=${encodeURIComponent(client.user.phone)}`, undefined],
    ] as const;
    for (const [method, path, body] of doors) {
      expect(
        (
          await api
            .given()
            .when(() => api.request(method, path, { body }))
            .then(expectResponse(200), expectNothingAppended)
        ).status,
        path,
      ).toBe(200);
      for (const headers of [
        { 'x-forwarded-for': '203.0.113.7' },
        { forwarded: 'for=203.0.113.7;proto=https' },
      ] as Record<string, string>[]) {
        const r = await refused(api, () => api.request(method, path, { body, headers }), 404, 'RouteNotFound');
        expect([r.status, r.body.error], `${path} ${JSON.stringify(headers)}`).toEqual([404, 'RouteNotFound']);
      }
    }
    await refused(api, (r) => r.get('/driver/orders', 'not-a-token'), 401);
    for (const to of [String(client.user.id), 'ana%2Bx@example.com'])
      expect((await api.request('GET', `/api/v1/dev/outbox?to=${to}`)).status, to).toBe(200);
    for (const to of ['', 'nadie', '%2B58%20412'])
      await api
        .given()
        .when((r) => r.get(`/dev/outbox?to=${to}`))
        .then(expectError(422, 'ValidationError', { fieldErrors: { to: [expect.any(String)] } }));
  });

  it('takes a request from any other interface for a stranger’s', () => {
    const req = (remoteAddress: string, headers: Record<string, string> = {}) =>
      ({ socket: { remoteAddress }, headers }) as unknown as Parameters<typeof isDirectLoopback>[0];
    expect(isDirectLoopback(req('127.0.0.1'))).toBe(true);
    expect(isDirectLoopback(req('::1'))).toBe(true);
    expect(isDirectLoopback(req('::ffff:127.0.0.1'))).toBe(true);
    expect(isDirectLoopback(req('192.168.1.20'))).toBe(false);
    expect(isDirectLoopback(req('10.0.0.1'))).toBe(false);
    expect(isDirectLoopback(req('127.0.0.1', { 'x-forwarded-for': '127.0.0.1' }))).toBe(false);
  });
});
