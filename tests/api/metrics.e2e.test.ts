import { afterAll, describe, expect, it } from 'vitest';
import { signInAdmin } from '../support/actors.js';
import { confirmedOrder, deliverOrder } from '../support/orderFlows.js';
import { buildTestService, startInstanceBeside, startTestService } from '../support/testService.js';
import { sampleOf, scrape } from '../support/metricsText.js';

/**
 * The operator's listener, on whichever backends the run has (embedded PostgreSQL and the in-process bus;
 * DATABASE_URL's server and NATS when set): an API instance that leads no projector lets the log run ahead
 * of its asynchronous read models, and a worker started beside it catches them up.
 */
describe('metrics listener', { timeout: 120_000 }, () => {
  const started: { stop(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const s of started.reverse()) await s.stop();
  });

  it('counts requests by route pattern and appends, and shows the projection lag rise and fall', async () => {
    // No projector here: every asynchronous read model falls behind; reads wait only briefly for them.
    const api = await startTestService({ roles: ['api'], scraped: true, env: { READ_YOUR_WRITES_TIMEOUT_MS: '100' } });
    started.push(api);
    const before = await scrape(api.metricsUrl!);
    const flow = await confirmedOrder(api);
    await deliverOrder(api, flow);
    const after = await scrape(api.metricsUrl!);

    const created = { route: '/api/v1/orders', method: 'POST', status_class: '2xx' };
    expect(sampleOf(after, 'http_requests_total', created) - sampleOf(before, 'http_requests_total', created)).toBe(1);
    const deliver = { route: '/api/v1/orders/:orderId/deliver', method: 'POST', status_class: '2xx' };
    expect(sampleOf(after, 'http_requests_total', deliver)).toBe(1);
    expect(after).not.toContain(`/orders/${flow.orderId}`);
    expect(sampleOf(after, 'http_request_duration_seconds_count', { route: '/api/v1/orders', method: 'POST' })).toBe(1);
    const appends = (text: string) => sampleOf(text, 'event_store_appends_total', { outcome: 'ok' });
    expect(appends(after) - appends(before)).toBeGreaterThanOrEqual(6);
    expect(sampleOf(after, 'event_store_append_duration_seconds_count')).toBeGreaterThanOrEqual(appends(after));
    expect(sampleOf(after, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sampleOf(after, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(sampleOf(after, 'db_pool_connections', { state: 'idle' })).toBeGreaterThan(0);
    expect(sampleOf(after, 'bus_connected')).toBe(1);
    // Outside providers by provider and operation (sign-ins sent their codes by SMS, the simulator here).
    expect(
      sampleOf(after, 'provider_calls_total', { provider: 'sms', operation: 'send', outcome: 'ok' }),
    ).toBeGreaterThan(0);
    const forged = await api.request('POST', '/api/v1/payments/webhook/payprov', {
      raw: '{"paymentId":1}',
      headers: { 'x-signature': 'sha256=00' },
    });
    expect(forged.body.error).toBe('InvalidWebhook');
    const payout = await api.request('POST', '/api/v1/settlements/webhook/payprov?token=wrong', { body: {} });
    expect(payout.status).toBe(401);
    const refused = await scrape(api.metricsUrl!);
    expect(sampleOf(refused, 'webhook_verifications_refused_total', { webhook: 'payment/payprov' })).toBe(1);
    expect(sampleOf(refused, 'webhook_verifications_refused_total', { webhook: 'payout' })).toBe(1);
    expect(refused).not.toContain('wrong');
    // A settlement run, as an admin starts it (the scheduler's code): timed and counted by process and outcome.
    const admin = await signInAdmin(api);
    expect(
      (await api.request('POST', '/api/v1/admin/settlements/run', { token: admin.token, body: { process: 'cutoff' } }))
        .status,
    ).toBe(200);
    const settled = await scrape(api.metricsUrl!);
    expect(sampleOf(settled, 'settlement_runs_total', { process: 'cutoff', outcome: 'ok' })).toBe(1);
    expect(sampleOf(settled, 'settlement_run_duration_seconds_count', { process: 'cutoff' })).toBe(1);
    const lagging = (text: string) => sampleOf(text, 'projection_lag_events');
    expect(lagging(after)).toBeGreaterThan(lagging(before));
    expect(sampleOf(after, 'projection_lag_seconds')).toBeGreaterThan(0);
    // Probes and scrapes are not API traffic: the public port does not serve /metrics.
    expect((await api.request('GET', '/metrics')).status).toBe(404);

    // A worker with no API is probed and scraped on the same kind of listener, and applies what was behind.
    const worker = await startInstanceBeside(api, { roles: ['projector', 'scheduler'], scraped: true });
    started.push(worker);
    expect(worker.port).toBe(0);
    expect((await fetch(`${worker.metricsUrl}/health`)).status).toBe(200);
    await expect.poll(async () => (await fetch(`${worker.metricsUrl}/ready`)).status, { timeout: 20_000 }).toBe(200);
    await expect.poll(async () => lagging(await scrape(worker.metricsUrl!)), { timeout: 20_000 }).toBe(0);
    const batches = await scrape(worker.metricsUrl!);
    expect(sampleOf(batches, 'projection_runner_batch_events_sum')).toBeGreaterThan(0);
    await expect.poll(async () => lagging(await scrape(api.metricsUrl!)), { timeout: 20_000 }).toBe(0);
  });

  it('refuses to start on a metrics port already taken, naming METRICS_PORT', async () => {
    const first = await startTestService({ scraped: true });
    started.push(first);
    const { service, drop } = await buildTestService();
    try {
      await expect(service.start(0, first.service.metricsPort)).rejects.toThrow(/METRICS_PORT \d+ is in use/);
    } finally {
      await service.stop();
      await drop?.();
    }
  });
});
