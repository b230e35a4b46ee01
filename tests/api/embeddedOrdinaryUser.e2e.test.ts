import { accessSync, chownSync, constants, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive } from '../../infra/db/directoryLock.js';
import { signInClient } from '../support/actors.js';
import { orderBody } from '../support/orderFlows.js';
import {
  embeddedDataDir,
  freePort,
  postmasterPidOf,
  removeEmbeddedDir,
  request,
  spawnService,
  waitForHealth,
  type ChildService,
} from './faults.support.js';

/** `nobody` exists on every Linux; initdb needs a user with a passwd entry. */
const NOBODY = 65534;

const uidOf = (pid: number) => Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
/**
 * Issue #29: the embedded default starts as an ordinary user as well as as root (where it runs the cluster as
 * `postgres`). On a root machine (CI, containers) the service is started as `nobody` through setpriv; as an
 * ordinary user every other embedded test already is this case.
 */
const whyNot = (): string | null => {
  if (process.getuid?.() !== 0) return 'the suite already runs as an ordinary user (every embedded test covers it)';
  try {
    accessSync('/usr/bin/setpriv', constants.X_OK);
  } catch {
    return 'setpriv (util-linux) is not installed';
  }
  return null;
};
const skipReason = whyNot();
if (skipReason) console.info(`skipped: the embedded default as an ordinary user: ${skipReason}`);

describe.skipIf(skipReason !== null)('the embedded default as an ordinary user', { timeout: 180_000 }, () => {
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

  it('initdb and the cluster run as that user, a first order succeeds, SIGTERM stops both', async () => {
    const dir = embeddedDataDir('embedded-nobody-');
    dirs.push(dir);
    // The parent of the data directory is the user's own (the service keeps its development secret there).
    chownSync(join(dir, '..'), NOBODY, NOBODY);
    const s = spawnService({ PORT: String(await freePort()), EMBEDDED_DB_DIR: dir, HOME: join(dir, '..') }, [
      '/usr/bin/setpriv',
      `--reuid=${NOBODY}`,
      `--regid=${NOBODY}`,
      '--clear-groups',
      '--',
      process.execPath,
      '--import',
      'tsx',
      'app/main.ts',
    ]);
    children.push(s);
    await waitForHealth(s);
    expect(uidOf(s.child.pid!)).toBe(NOBODY);
    const postmaster = postmasterPidOf(dir);
    expect(uidOf(postmaster)).toBe(NOBODY);

    const client = await signInClient(s.client);
    const created = await request(s.client.baseUrl, 'POST', '/api/v1/orders', {
      token: client.token,
      body: orderBody(),
    });
    expect(created.status).toBe(201);
    expect(created.body.order.status).toBe('BROADCASTING');

    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    expect(isAlive(postmaster)).toBe(false);
  });
});
