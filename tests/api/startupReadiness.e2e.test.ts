import { appendToStream } from '../../infra/eventStore/port.js';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInClient, type SignedInUser } from '../support/actors.js';
import { orderBody } from '../support/orderFlows.js';
import { startTestService, type TestService } from '../support/testService.js';

/**
 * Issue #13: a readiness probe must not pull a healthy instance out of rotation because a write is in
 * flight. "Projections behind" means the oldest unapplied event is older than READY_MAX_PROJECTION_LAG_MS.
 * The in-flight case shows on PostgreSQL (DATABASE_URL), where writes commit side by side: comparing
 * with the head failed 25 of these 40 probes.
 */
describe('/ready under writes', { timeout: 120_000 }, () => {
  let t: TestService;
  let clients: SignedInUser[];
  beforeAll(async () => {
    t = await startTestService({ env: { OFFICIAL_RATE_VES: '36.5' } });
    clients = await Promise.all(Array.from({ length: 10 }, () => signInClient(t)));
  });
  afterAll(() => t?.stop());

  it('answers 200 to every probe while orders are being created', async () => {
    const writes = clients.map((c) => t.request('POST', '/api/v1/orders', { token: c.token, body: orderBody() }));
    const probes: Promise<{ status: number; body: { checks: Record<string, boolean>; projectionLagMs: number } }>[] =
      [];
    for (let i = 0; i < 40; i++) {
      probes.push(t.request('GET', '/ready'));
      if (i % 4 === 0) await new Promise((r) => setImmediate(r));
    }
    const [written, probed] = await Promise.all([Promise.all(writes), Promise.all(probes)]);
    expect(written.map((w) => w.status)).toEqual(clients.map(() => 201));
    expect(probed.filter((p) => p.status !== 200).map((p) => p.body)).toEqual([]);
  });

  it('fails "projections" once the oldest unapplied event is older than the threshold, and says how old', async () => {
    // The probe is an event of no domain: the schema check, which would refuse it, is off for this service.
    const lagging = await startTestService({
      env: { READY_MAX_PROJECTION_LAG_MS: '200', CHECK_EVENT_SCHEMAS: 'false' },
    });
    try {
      // Caught up, then stopped: the next event stays unapplied.
      const { runner, store } = lagging.service.ctx;
      expect(await runner.waitFor(await store.headPosition(), 10_000)).toBe(true);
      await runner.stop();
      await appendToStream(store, 'ready-probe', [{ eventId: randomUUID(), type: 'ReadyProbe', data: {} }], {
        expectedRevision: 'no_stream',
      });
      const fresh = await lagging.request('GET', '/ready');
      expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
      // Polled: on a shared PostgreSQL server a transaction of another database can hold the event
      // invisible (below the snapshot's xmin) for a moment, and what the runner cannot read is not lag yet.
      let stale = await lagging.request('GET', '/ready');
      for (const deadline = Date.now() + 10_000; stale.status === 200 && Date.now() < deadline;) {
        await new Promise((r) => setTimeout(r, 100));
        stale = await lagging.request('GET', '/ready');
      }
      expect(stale.status, JSON.stringify(stale.body)).toBe(503);
      expect(stale.body.checks).toMatchObject({ projections: false, database: true, eventStore: true, bus: true });
      expect(stale.body.projectionLagMs).toBeGreaterThanOrEqual(200);
    } finally {
      await lagging.stop();
    }
  });
});
