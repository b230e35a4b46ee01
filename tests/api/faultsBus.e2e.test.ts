import { afterEach, describe, expect, it } from 'vitest';
import {
  outageProxy,
  freePort,
  request,
  spawnService,
  waitForHealth,
  waitUntil,
  type ChildService,
} from './faults.support.js';

/**
 * Issue #13: NATS down at start-up must not keep the service from starting. The bus connects in the
 * background and /ready reports it down meanwhile. A TCP hop in front of the shared NATS server plays the
 * outage; the server itself is never touched.
 */
describe.skipIf(!process.env.NATS_URL)('NATS away at start-up', { timeout: 180_000 }, () => {
  let s: ChildService | undefined;
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    if (s?.child.exitCode === null) {
      s.child.kill('SIGKILL');
      await s.exited;
    }
    await close?.();
    s = close = undefined;
  });

  it('starts, answers /ready 503 with the bus down, and becomes ready once NATS is reachable', async () => {
    const nats = new URL(process.env.NATS_URL!);
    const hop = await outageProxy({ host: nats.hostname, port: Number(nats.port || 4222) });
    close = () => hop.close();
    hop.down();
    s = spawnService({
      PORT: String(await freePort()),
      PGLITE_DIR: 'memory://',
      NATS_URL: `nats://127.0.0.1:${hop.port}`,
    });
    await waitForHealth(s);
    const down = await request(s.client.baseUrl, 'GET', '/ready');
    expect(down.status).toBe(503);
    expect(down.body.checks).toMatchObject({ bus: false, database: true });
    expect(s.output()).toContain('bus not reachable yet');

    hop.up();
    await waitUntil(
      'ready with the bus',
      async () => (await request(s!.client.baseUrl, 'GET', '/ready')).status === 200,
      30_000,
    );
  });
});
