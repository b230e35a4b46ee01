import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInClient } from '../support/actors.js';
import { orderBody } from '../support/orderFlows.js';
import { startTestService, type TestService } from '../support/testService.js';

/**
 * A write commits, and its read model cannot follow in time (here: no process runs the projectors; in
 * production, its database gone a moment). The answer must say the outcome is unknown, never that what
 * was just written does not exist.
 */
describe('a committed write whose read model stays behind', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: { OFFICIAL_RATE_VES: '36.5', READ_YOUR_WRITES_TIMEOUT_MS: '200' }, roles: ['api'] });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('answers 503 ServiceUnavailable with Retry-After, not 404, and the write stands', async () => {
    const client = await signInClient(t);
    const created = await t.request('POST', '/api/v1/orders', { token: client.token, body: orderBody() });
    expect(created.status).toBe(503);
    expect(created.body).toMatchObject({ error: 'ServiceUnavailable', retryAfterSeconds: 1 });
    expect(created.headers.get('retry-after')).toBe('1');
    // The retry finds the order the first attempt created.
    const again = await t.request('POST', '/api/v1/orders', { token: client.token, body: orderBody() });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('ActiveOrderExists');
  });
});
