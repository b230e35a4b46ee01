import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockPathOf } from '../../infra/db/directoryLock.js';
import { signInClient } from '../support/actors.js';
import { orderBody } from '../support/orderFlows.js';
import { freePort, request, spawnService, waitForHealth, type ChildService } from './faults.support.js';

/** Issue #13, fault 2: a second process on one embedded directory must not start (and destroy it). */
describe('one process per PGlite directory', { timeout: 240_000 }, () => {
  const children: ChildService[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) {
      if (c.child.exitCode === null) {
        c.child.kill('SIGKILL');
        await c.exited;
      }
    }
    for (const d of dirs.splice(0)) {
      rmSync(d, { recursive: true, force: true });
      rmSync(lockPathOf(d), { force: true });
    }
  });

  const start = async (dir: string) => {
    const s = spawnService({ PORT: String(await freePort()), PGLITE_DIR: dir });
    children.push(s);
    return s;
  };
  const freshDir = () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'pglite-lock-')), 'data');
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

    const next = await start(dir);
    await waitForHealth(next);
    expect(readFileSync(lockPathOf(dir), 'utf8').trim()).toBe(String(next.child.pid));
    const read = await request(next.client.baseUrl, 'GET', `/api/v1/orders/${created.body.order.id}`, {
      token: client.token,
    });
    expect(read.status).toBe(200);

    // A clean stop removes the lock.
    next.child.kill('SIGTERM');
    expect(await next.exited).toBe(0);
    expect(() => readFileSync(lockPathOf(dir))).toThrow();

    // A lock file without a pid (its writer died mid-write) is taken over too. On the same directory: a
    // fresh one would pay initdb again for a check about the lock alone.
    writeFileSync(lockPathOf(dir), '');
    const third = await start(dir);
    await waitForHealth(third);
    expect(readFileSync(lockPathOf(dir), 'utf8').trim()).toBe(String(third.child.pid));
  });
});
