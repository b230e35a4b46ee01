import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { signInClient, type SignedInUser } from '../support/actors.js';
import { orderBody } from '../support/orderFlows.js';
import { freshDatabaseUrl } from '../support/testService.js';
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
 * Issue #13, fault 1: losing the database must not kill the service. Runs against the real PostgreSQL
 * (DATABASE_URL), each test on a database it creates; the shared server itself is never stopped: an
 * outage is our own sessions terminated, or a TCP hop in front of the server going down.
 */

interface Outcome {
  status: number | 'reset';
  at: number;
  error?: string;
  retryAfter?: string | null;
}

/**
 * Steady writes: each worker creates an order and cancels it, again and again. A create answered 409
 * means an earlier attempt answered 503 had committed (its outcome was unknown to the client): the
 * worker moves on to its next client.
 */
const writeLoad = (s: ChildService, clients: SignedInUser[][]) => {
  const outcomes: Outcome[] = [];
  const acknowledged: { orderId: number; token: string }[] = [];
  let running = true;
  const send = async (method: string, path: string, token: string, body: unknown) => {
    try {
      const r = await request(s.client.baseUrl, method, path, { token, body });
      outcomes.push({
        status: r.status,
        at: Date.now(),
        error: r.body?.error,
        retryAfter: r.headers.get('retry-after'),
      });
      return r;
    } catch (err) {
      outcomes.push({ status: 'reset', at: Date.now(), error: String((err as Error).cause ?? err) });
      return null;
    }
  };
  const worker = async (mine: SignedInUser[]) => {
    for (const client of mine) {
      while (running) {
        const created = await send('POST', '/api/v1/orders', client.token, orderBody());
        if (created?.status === 409) break;
        if (created?.status !== 201) continue;
        const orderId: number = created.body.order.id;
        acknowledged.push({ orderId, token: client.token });
        while (running) {
          const cancelled = await send('POST', `/api/v1/orders/${orderId}/cancel`, client.token, {});
          if (cancelled?.status === 200 || cancelled?.status === 409) break;
        }
      }
    }
  };
  const done = Promise.all(clients.map(worker));
  return {
    outcomes,
    acknowledged,
    async stop() {
      running = false;
      await done;
    },
  };
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const expectOnlyCleanAnswers = (outcomes: Outcome[]) => {
  const unexpected = outcomes.filter(
    (o) => !(o.status === 200 || o.status === 201 || o.status === 503 || o.status === 409),
  );
  expect(unexpected).toEqual([]);
  for (const o of outcomes.filter((x) => x.status === 503)) {
    expect(o.error).toBe('ServiceUnavailable');
    expect(o.retryAfter).toBe('1');
  }
};

/** Every acknowledged order is stored once and readable; no order id was handed out twice. */
const expectNothingLost = async (
  s: ChildService,
  databaseUrl: string,
  acknowledged: { orderId: number; token: string }[],
) => {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ stream_id: string; n: string }>(
      "SELECT stream_id, count(*) AS n FROM events WHERE type = 'OrderCreated' GROUP BY stream_id",
    );
    expect(rows.filter((r) => Number(r.n) !== 1)).toEqual([]);
    const stored = new Set(rows.map((r) => r.stream_id));
    expect(acknowledged.filter((a) => !stored.has(`order-${a.orderId}`))).toEqual([]);
  } finally {
    await db.end();
  }
  for (const a of acknowledged) {
    const r = await request(s.client.baseUrl, 'GET', `/api/v1/orders/${a.orderId}`, { token: a.token });
    expect(r.status).toBe(200);
  }
};

const signInWorkers = async (s: ChildService, workers: number, each: number) =>
  Promise.all(
    Array.from({ length: workers }, () => Promise.all(Array.from({ length: each }, () => signInClient(s.client)))),
  );

describe.skipIf(!process.env.DATABASE_URL)('losing PostgreSQL (real server)', { timeout: 240_000 }, () => {
  const children: ChildService[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) {
      if (c.child.exitCode === null) {
        c.child.kill('SIGKILL');
        await c.exited;
      }
    }
    for (const f of cleanups.splice(0).reverse()) await f();
  });

  const freshDatabase = async () => {
    const fresh = await freshDatabaseUrl();
    cleanups.push(fresh.drop);
    return fresh.url;
  };
  const start = async (env: Record<string, string>, roles: string[] = []) => {
    const port = await freePort();
    const s = spawnService({ PORT: String(port), ...env }, [
      process.execPath,
      '--import',
      'tsx',
      'app/main.ts',
      ...roles.flatMap((r) => ['--role', r]),
    ]);
    children.push(s);
    return s;
  };

  it.each([
    ['all-in-one', [[]]],
    ['--role api beside --role projector,scheduler', [['api'], ['projector', 'scheduler']]],
  ])(
    '%s: its sessions terminated three times under load, it stays up, answers 503 meanwhile and loses nothing',
    async (_name, roleSets) => {
      const databaseUrl = await freshDatabase();
      const dbName = new URL(databaseUrl).pathname.slice(1);
      // One after the other: the first creates the schema.
      const services: ChildService[] = [];
      for (const roles of roleSets as string[][]) {
        const s = await start({ DATABASE_URL: databaseUrl }, roles);
        if (roles.length === 0 || roles.includes('api')) await waitForHealth(s);
        else await waitUntil('projector start', async () => s.output().includes('service started'));
        services.push(s);
      }
      const api = services[0];
      const load = writeLoad(api, await signInWorkers(api, 4, 6));
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      let lastCutAt = 0;
      try {
        await sleep(800);
        for (let i = 0; i < 3; i++) {
          const { rows } = await admin.query<{ n: string }>(
            'SELECT count(pg_terminate_backend(pid)) AS n FROM ' +
              'pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
            [dbName],
          );
          expect(Number(rows[0].n)).toBeGreaterThan(0);
          lastCutAt = Date.now();
          await sleep(400);
        }
        await sleep(1500);
      } finally {
        await load.stop();
      }
      for (const s of services) expect(s.child.exitCode, s.output().slice(-3000)).toBeNull();
      expectOnlyCleanAnswers(load.outcomes);
      expect(load.acknowledged.length).toBeGreaterThan(10);
      const firstWriteAfter = load.outcomes.find((o) => o.at > lastCutAt && (o.status === 200 || o.status === 201));
      expect(firstWriteAfter!.at - lastCutAt).toBeLessThan(1000);
      console.info(
        `sessions terminated (${_name}): ${load.acknowledged.length} orders ` +
          `acknowledged, ${load.outcomes.filter((o) => o.status === 503).length} answers ` +
          `503, first write ${firstWriteAfter!.at - lastCutAt} ms after the last cut`,
      );

      // The projector claimed its advisory locks again and caught up: /ready says so.
      await waitUntil(
        'ready again',
        async () => (await request(api.client.baseUrl, 'GET', '/ready')).status === 200,
        15_000,
      );
      const { rows: locks } = await admin.query<{ n: string }>(
        'SELECT count(*) AS n FROM pg_locks l JOIN pg_stat_activity a ON ' +
          "a.pid = l.pid WHERE l.locktype = 'advisory' AND a.datname = $1",
        [dbName],
      );
      expect(Number(locks[0].n)).toBeGreaterThan(0);
      await admin.end();
      await expectNothingLost(api, databaseUrl, load.acknowledged);
    },
  );

  it(
    'the database away for 10 s: /health 200, /ready and ' + 'requests 503, writes again within a second of its return',
    async () => {
      const databaseUrl = await freshDatabase();
      const target = new URL(process.env.DATABASE_URL!);
      const proxy = await outageProxy({ host: target.hostname, port: Number(target.port || 5432) });
      cleanups.push(() => proxy.close());
      const viaProxy = new URL(databaseUrl);
      viaProxy.host = `127.0.0.1:${proxy.port}`;
      const s = await start({ DATABASE_URL: viaProxy.toString() });
      await waitForHealth(s);
      const load = writeLoad(s, await signInWorkers(s, 2, 4));
      let backAt = 0;
      try {
        await sleep(500);
        proxy.down();
        await sleep(1000);
        expect((await request(s.client.baseUrl, 'GET', '/health')).status).toBe(200);
        const ready = await request(s.client.baseUrl, 'GET', '/ready');
        expect(ready.status).toBe(503);
        expect(ready.body.checks.database).toBe(false);
        await sleep(9000);
        proxy.up();
        backAt = Date.now();
        await sleep(1500);
      } finally {
        await load.stop();
      }
      expect(s.child.exitCode, s.output().slice(-3000)).toBeNull();
      expectOnlyCleanAnswers(load.outcomes);
      expect(load.outcomes.filter((o) => o.status === 503).length).toBeGreaterThan(0);
      const firstWriteAfter = load.outcomes.find((o) => o.at > backAt && (o.status === 200 || o.status === 201));
      expect(firstWriteAfter!.at - backAt).toBeLessThan(1000);
      console.info(
        `database away 10 s: ${load.acknowledged.length} orders acknowledged, ` +
          `${load.outcomes.filter((o) => o.status === 503).length} answers 503, ` +
          `first write ${firstWriteAfter!.at - backAt} ms after its return`,
      );
      await waitUntil(
        'ready again',
        async () => (await request(s.client.baseUrl, 'GET', '/ready')).status === 200,
        15_000,
      );
      await expectNothingLost(s, databaseUrl, load.acknowledged);
    },
  );

  it(
    'started while the database is down, it waits (a log line ' +
      'per try) and serves once it is back; SIGTERM ends the wait',
    async () => {
      const databaseUrl = await freshDatabase();
      const target = new URL(process.env.DATABASE_URL!);
      const proxy = await outageProxy({ host: target.hostname, port: Number(target.port || 5432) });
      cleanups.push(() => proxy.close());
      proxy.down();
      const viaProxy = new URL(databaseUrl);
      viaProxy.host = `127.0.0.1:${proxy.port}`;

      const waiting = await start({ DATABASE_URL: viaProxy.toString() });
      await waitUntil(
        'two tries logged',
        async () => (waiting.output().match(/database not reachable yet/g) ?? []).length >= 2,
      );
      expect(waiting.child.exitCode).toBeNull();
      proxy.up();
      await waitForHealth(waiting);
      const client = await signInClient(waiting.client);
      expect(
        (await request(waiting.client.baseUrl, 'POST', '/api/v1/orders', { token: client.token, body: orderBody() }))
          .status,
      ).toBe(201);
      waiting.child.kill('SIGTERM');
      expect(await waiting.exited).toBe(0);

      proxy.down();
      const interrupted = await start({ DATABASE_URL: viaProxy.toString() });
      await waitUntil('a try logged', async () => interrupted.output().includes('database not reachable yet'));
      const signalledAt = Date.now();
      interrupted.child.kill('SIGTERM');
      expect(await interrupted.exited).toBe(0);
      expect(Date.now() - signalledAt).toBeLessThan(3000);
    },
  );
});
