import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhook } from '../../infra/payments/webhooks.js';
import { signInAdmin, signInClient } from '../support/actors.js';
import { capturedLogger, startTestService, type TestService } from '../support/testService.js';
import { openSocket } from '../support/wsClient.js';

/** No credential reaches a log line (issue #20 finding 4): the log output is read after calls that carry them. */
describe('logs hold no credential', () => {
  let t: TestService;
  const log = capturedLogger('info');
  beforeAll(async () => {
    t = await startTestService({ logger: log.logger });
  });
  afterAll(() => t?.stop());

  it('after an admin refresh, payout and payment webhook calls and a websocket connect', async () => {
    const admin = await signInAdmin(t);
    const refreshed = await t.request('POST', '/api/v1/admin/auth/refresh-jwt', { token: admin.token });
    expect(refreshed.status).toBe(200);
    const renewed = refreshed.headers.get('authorization')!.replace(/^Bearer /, '');
    expect(renewed).toBe(refreshed.body.access_token);

    const payoutToken = t.service.ctx.config.PAYOUT_WEBHOOK_TOKEN;
    const payout = await t.request('POST', `/api/v1/settlements/webhook/payprov?token=${payoutToken}`, {
      body: { internal_id: 'nobody', transaction_id: 'T-1', status: 'ACCP' },
    });
    expect(payout.status).toBe(200);
    const raw = JSON.stringify({
      id: 'evt-log-1',
      type: 'payment.confirmed',
      data: { reference: 'unknown-ref', amount_cents: 100 },
    });
    const signature = signWebhook(raw, t.service.ctx.config.PAYMENT_WEBHOOK_SECRET);
    await t.request('POST', '/api/v1/payments/webhook/payprov', { raw, headers: { 'x-signature': signature } });

    const client = await signInClient(t);
    const socket = await openSocket(t, { token: client.token, via: 'query' });
    await socket.close();
    const me = await t.request('GET', `/api/v1/me?token=${client.token}`, { token: client.token });
    expect(me.status).toBe(200);

    const text = log.lines();
    expect(text).toContain('/api/v1/settlements/webhook/payprov?token=[Redacted]');
    expect(text).toContain('/api/v1/admin/auth/refresh-jwt');
    for (const secret of [admin.token, renewed, payoutToken, signature, client.token])
      expect(text).not.toContain(secret);
  });
});
