import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturedLogger, startTestService, type TestService } from '../support/testService.js';

describe('API skeleton', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('answers /health and /ready', async () => {
    const health = await t.request('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    const ready = await t.request('GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toMatchObject({ eventStore: true, database: true, bus: true, projections: true });
  });

  it('serves an OpenAPI 3.1 document', async () => {
    const doc = await t.request('GET', '/api/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(doc.body.paths).toBeTypeOf('object');
  });

  it('answers an unknown route with 404 RouteNotFound and a request id', async () => {
    const r = await t.request('GET', '/api/v1/no-such-thing');
    expect(r.status).toBe(404);
    expect(r.body.error).toBe('RouteNotFound');
    expect(r.headers.get('x-request-id')).toBeTruthy();
  });

  it('echoes a well-formed X-Request-Id', async () => {
    const r = await t.request('GET', '/health', { headers: { 'x-request-id': 'abc-123' } });
    expect(r.headers.get('x-request-id')).toBe('abc-123');
  });

  it('logs each request at info, and at warn gives it an id without a line', async () => {
    for (const level of ['info', 'warn']) {
      const log = capturedLogger(level);
      const other = await startTestService({ logger: log.logger });
      try {
        // Not a probe: /health and /ready are never logged per request (tests/api/quietLogs.e2e.test.ts).
        const r = await other.request('GET', '/api/v1/asyncapi.json', { headers: { 'x-request-id': `req-${level}` } });
        expect(r.headers.get('x-request-id')).toBe(`req-${level}`);
        expect(log.lines().includes(`"id":"req-${level}"`)).toBe(level === 'info');
      } finally {
        await other.stop();
      }
    }
  });
});
