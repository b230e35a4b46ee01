import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInClient, signInDriver } from '../support/actors.js';
import { startTestService, type TestService } from '../support/testService.js';

/**
 * Security headers on every answer, no-store on authenticated ones, https-only document links (issue #20 finding 11).
 */
describe('security headers', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t?.stop());

  const API_HEADERS = {
    'content-security-policy': "default-src 'none';frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  };
  const headersOf = (h: Headers) => Object.fromEntries(Object.keys(API_HEADERS).map((k) => [k, h.get(k)]));

  it('every answer carries the API profile: health, a public route, an unknown path, an error', async () => {
    for (const [method, path] of [
      ['GET', '/health'],
      ['GET', '/api/v1/openapi.json'],
      ['GET', '/api/v1/nothing-here'],
      ['POST', '/api/v1/auth/otp/request'],
    ] as const) {
      const r = await t.request(method, path, method === 'POST' ? { body: {} } : {});
      expect(headersOf(r.headers), path).toEqual(API_HEADERS);
      expect(r.headers.get('strict-transport-security'), path).toMatch(/max-age=\d+/);
    }
  });

  it('authenticated answers, and refusals of authenticated routes, are never stored by a cache', async () => {
    const client = await signInClient(t);
    const me = await t.request('GET', '/api/v1/me', { token: client.token });
    expect([me.status, me.headers.get('cache-control')]).toEqual([200, 'no-store']);
    const refused = await t.request('GET', '/api/v1/me');
    expect([refused.status, refused.headers.get('cache-control')]).toEqual([401, 'no-store']);
  });

  it('a driver document link must be https:', async () => {
    const driver = await signInDriver(t, { approved: false });
    for (const fileUrl of [
      'javascript:alert(document.cookie)',
      'data:text/html,<script>alert(1)</script>',
      'http://files.example.com/id.jpg',
    ]) {
      const r = await t.request('POST', '/api/v1/driver/documents', {
        token: driver.token,
        body: { type: 'ID_FRONT', expiresAt: '2030-01-31', fileUrl },
      });
      expect([r.status, Object.keys(r.body.details.fieldErrors)], fileUrl).toEqual([422, ['fileUrl']]);
    }
    const ok = await t.request('POST', '/api/v1/driver/documents', {
      token: driver.token,
      body: { type: 'ID_FRONT', expiresAt: '2030-01-31', fileUrl: 'https://files.example.com/id.jpg' },
    });
    expect(ok.status).toBe(201);
  });
});
