import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, lockPathOf } from '../../infra/db/directoryLock.js';
import { signInClient } from '../support/actors.js';
import { orderBody } from '../support/orderFlows.js';
import {
  embeddedDataDir,
  freePort,
  postmasterPidOf,
  removeEmbeddedDir,
  request,
  runningNotZombie,
  spawnService,
  waitForHealth,
  waitUntil,
  type ChildService,
} from './faults.support.js';

/**
 * Issue #13, fault 2, and issue #29: one service per embedded PostgreSQL directory; the cluster lives and
 * dies with its service (SIGTERM stops it, a SIGKILLed service's postmaster is adopted at the next start),
 * and nothing acknowledged is lost.
 */
describe('one service per embedded PostgreSQL directory', { timeout: 240_000 }, () => {
  const children: ChildService[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) {
      if (c.child.exitCode === null) {
        c.child.kill('SIGKILL');
        await c.exited;
      }
    }
    for (const d of dirs.splice(0)) await removeEmbeddedDir(d);
  });

  const start = async (dir: string) => {
    const s = spawnService({ PORT: String(await freePort()), EMBEDDED_DB_DIR: dir });
    children.push(s);
    return s;
  };
  const freshDir = () => {
    const dir = embeddedDataDir('embedded-lock-');
    dirs.push(dir);
    return dir;
  };

  it(
    'a second start on the same directory refuses with one line ' +
      'naming the directory and the owner; the first keeps its data',
    async () => {
      const dir = freshDir();
      const first = await start(dir);
      await waitForHealth(first);
      const client = await signInClient(first.client);
      const created = await request(first.client.baseUrl, 'POST', '/api/v1/orders', {
        token: client.token,
        body: orderBody(),
      });
      expect(created.status).toBe(201);

      const second = await start(dir);
      expect(await second.exited).toBe(1);
      const lines = second.output().trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(dir);
      expect(lines[0]).toContain(`process ${first.child.pid}`);

      expect(first.child.exitCode).toBeNull();
      const read = await request(first.client.baseUrl, 'GET', `/api/v1/orders/${created.body.order.id}`, {
        token: client.token,
      });
      expect(read.status).toBe(200);
    },
  );

  it('a stale lock (its process died, or it holds no pid) is taken over, and the data is intact', async () => {
    const dir = freshDir();
    const first = await start(dir);
    await waitForHealth(first);
    const client = await signInClient(first.client);
    const created = await request(first.client.baseUrl, 'POST', '/api/v1/orders', {
      token: client.token,
      body: orderBody(),
    });
    expect(created.status).toBe(201);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(readFileSync(lockPathOf(dir), 'utf8').trim()).toBe(String(first.child.pid));
    // Its PostgreSQL outlived it, and the next start adopts it, saying so once.
    const orphan = postmasterPidOf(dir);
    expect(isAlive(orphan)).toBe(true);

    const next = await start(dir);
    await waitForHealth(next);
    expect(readFileSync(lockPathOf(dir), 'utf8').trim()).toBe(String(next.child.pid));
    expect(next.output().match(/left running by an earlier service/g)).toHaveLength(1);
    expect(postmasterPidOf(dir)).toBe(orphan);
    const read = await request(next.client.baseUrl, 'GET', `/api/v1/orders/${created.body.order.id}`, {
      token: client.token,
    });
    expect(read.status).toBe(200);

    // A clean stop removes the lock and stops the cluster.
    next.child.kill('SIGTERM');
    expect(await next.exited).toBe(0);
    expect(() => readFileSync(lockPathOf(dir))).toThrow();
    expect(isAlive(orphan)).toBe(false);
    expect(() => readFileSync(join(dir, 'postmaster.pid'))).toThrow();

    // A lock file without a pid (its writer died mid-write) is taken over too. On the same directory: a
    // fresh one would pay initdb again for a check about the lock alone.
    writeFileSync(lockPathOf(dir), '');
    const third = await start(dir);
    await waitForHealth(third);
    expect(readFileSync(lockPathOf(dir), 'utf8').trim()).toBe(String(third.child.pid));
  });

  /** Four clients creating (and cancelling) orders until the service is SIGKILLed with `alsoKill`. */
  const killUnderLoad = async (first: ChildService, alsoKill: () => void) => {
    const clients = await Promise.all(Array.from({ length: 4 }, () => signInClient(first.client)));
    const acknowledged: { id: number; token: string }[] = [];
    let running = true;
    const load = Promise.all(
      clients.map(async (c) => {
        while (running) {
          const r = await request(first.client.baseUrl, 'POST', '/api/v1/orders', {
            token: c.token,
            body: orderBody(),
          }).catch(() => null);
          if (r?.status === 201) acknowledged.push({ id: r.body.order.id, token: c.token });
          // A client holds one open order: cancel it so that the next one is accepted.
          if (r?.status === 201)
            await request(first.client.baseUrl, 'POST', `/api/v1/orders/${r.body.order.id}/cancel`, {
              token: c.token,
              body: {},
            }).catch(() => null);
        }
      }),
    );
    while (acknowledged.length < 8) await new Promise((r) => setTimeout(r, 50));
    first.child.kill('SIGKILL');
    alsoKill();
    await first.exited;
    running = false;
    await load;
    return acknowledged;
  };

  /** The restarted service holds every acknowledged order once, in the log and over HTTP. */
  const restartHolds = async (dir: string, acknowledged: { id: number; token: string }[], what: string) => {
    const restartedAt = Date.now();
    const next = await start(dir);
    await waitForHealth(next);
    const tookMs = Date.now() - restartedAt;
    console.info(`${what}: /health after ${tookMs} ms; ${acknowledged.length} orders acknowledged`);
    const db = new pg.Client({ host: dir, port: 5432, user: 'postgres', database: 'postgres' });
    await db.connect();
    try {
      const { rows } = await db.query<{ stream_id: string; n: number }>(
        "SELECT stream_id, count(*)::int AS n FROM events WHERE type = 'OrderCreated' GROUP BY stream_id",
      );
      expect(rows.filter((r) => r.n !== 1)).toEqual([]);
      const stored = new Set(rows.map((r) => r.stream_id));
      expect(acknowledged.filter((a) => !stored.has(`order-${a.id}`))).toEqual([]);
    } finally {
      await db.end();
    }
    for (const a of acknowledged) {
      const r = await request(next.client.baseUrl, 'GET', `/api/v1/orders/${a.id}`, { token: a.token });
      expect(r.status).toBe(200);
    }
  };

  it('SIGKILLed under write load, it is back within seconds and every acknowledged order is there', async () => {
    const dir = freshDir();
    const first = await start(dir);
    await waitForHealth(first);
    const acknowledged = await killUnderLoad(first, () => {});
    await restartHolds(dir, acknowledged, 'restart after SIGKILL under load');
  });

  it('SIGKILLed together with its PostgreSQL (a power cut, a killed container), it recovers every acknowledged order', async () => {
    const dir = freshDir();
    const first = await start(dir);
    await waitForHealth(first);
    const postmaster = postmasterPidOf(dir);
    const acknowledged = await killUnderLoad(first, () => process.kill(postmaster, 'SIGKILL'));
    // The backends notice their postmaster's death and exit on their own; the stale postmaster.pid stays.
    await waitUntil('the killed postmaster to be gone', async () => !runningNotZombie(postmaster), 10_000);
    await restartHolds(dir, acknowledged, 'restart after SIGKILL of service and PostgreSQL under load');
  });
});
