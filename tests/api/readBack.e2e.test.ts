import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInClient } from '../support/actors.js';
import { orderBody } from '../support/orderFlows.js';
import { startTestService, type TestService } from '../support/testService.js';

/**
 * A write's answer reads read models that commit with the write (docs/decisions/0003-inline-and-async-read-models.md):
 * even with no process running the asynchronous projectors, the answer holds
 * what was just written, never a 404, a 503 or an older state.
 */
describe('a write whose asynchronous projectors do not run', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({
      env: { OFFICIAL_RATE_VES: '36.5', READ_YOUR_WRITES_TIMEOUT_MS: '200' },
      roles: ['api'],
    });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('answers what it wrote, and every read after it sees it', async () => {
    const client = await signInClient(t);
    const created = await t.request('POST', '/api/v1/orders', { token: client.token, body: orderBody() });
    expect(created.status).toBe(201);
    expect(created.body.order).toMatchObject({ status: 'BROADCASTING' });
    const read = await t.request('GET', `/api/v1/orders/${created.body.order.id}`, { token: client.token });
    expect(read.status).toBe(200);
    expect(read.body.order.id).toBe(created.body.order.id);
    const again = await t.request('POST', '/api/v1/orders', { token: client.token, body: orderBody() });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('ActiveOrderExists');
  });
});
