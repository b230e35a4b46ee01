import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { isAlive } from '../../infra/db/directoryLock.js';
import { freePort, spawnService, waitForHealth, waitUntil, type ChildService } from './faults.support.js';

/**
 * Issue #13, fault 3: SIGTERM stops the service in bounded time whichever way it was started: through
 * `npm start` (npm signals its child only; a shell or tsx in between used to keep the service running
 * as an orphan) and through the production entry point, compiled JavaScript under plain node.
 */

/** The pid of the process that serves, from its "service started" log line. */
const servicePid = (s: ChildService): number => {
  const line = s
    .output()
    .split('\n')
    .find((l) => l.includes('"service started"'));
  return JSON.parse(line!).pid;
};

const stopsOnSigterm = async (s: ChildService) => {
  await waitForHealth(s);
  const pid = servicePid(s);
  const signalledAt = Date.now();
  s.child.kill('SIGTERM');
  const code = await s.exited;
  const tookMs = Date.now() - signalledAt;
  await waitUntil('the service process to be gone', async () => !isAlive(pid), 5000);
  await expect(fetch(`http://127.0.0.1:${s.port}/health`)).rejects.toThrow();
  return { code, tookMs };
};

const SOURCE_FOLDERS = ['domain', 'infra', 'stores', 'projections', 'commands', 'api', 'app'];

/**
 * `npm run build`'s entry point when that build is newer than every source and setting it compiles (CI
 * builds just before the tests), so that the suite does not compile the service a second time; else null.
 */
const freshBuild = (): string | null => {
  const entry = 'dist/app/main.js';
  if (!existsSync(entry)) return null;
  const builtAt = statSync(entry).mtimeMs;
  const inputs = [
    'tsconfig.json',
    'tsconfig.build.json',
    'package-lock.json',
    ...SOURCE_FOLDERS.flatMap((folder) =>
      readdirSync(folder, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .map((f) => join(folder, f)),
    ),
  ];
  return inputs.every((f) => statSync(f).mtimeMs < builtAt) ? entry : null;
};

describe('SIGTERM, whichever way the service was started', { timeout: 300_000 }, () => {
  const children: ChildService[] = [];
  const outDir = `.build-test-${randomBytes(4).toString('hex')}`;
  afterEach(async () => {
    for (const c of children.splice(0)) {
      if (c.child.exitCode === null) {
        c.child.kill('SIGKILL');
        await c.exited;
      }
    }
  });
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('npm start: npm forwards it to the service, which exits 0 and leaves nothing behind', async () => {
    const s = spawnService({ PORT: String(await freePort()), PGLITE_DIR: 'memory://' }, ['npm', 'start', '--silent']);
    children.push(s);
    const { code, tookMs } = await stopsOnSigterm(s);
    expect(code).toBe(0);
    expect(tookMs).toBeLessThan(15_000);
  });

  it('the production entry point (tsc build, node dist/app/main.js) exits 0 on SIGTERM', async () => {
    let entry = freshBuild();
    if (!entry) {
      await promisify(execFile)(
        process.execPath,
        ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--outDir', outDir],
        { timeout: 240_000 },
      );
      entry = `${outDir}/app/main.js`;
    }
    const s = spawnService({ PORT: String(await freePort()), PGLITE_DIR: 'memory://' }, [process.execPath, entry]);
    children.push(s);
    const { code, tookMs } = await stopsOnSigterm(s);
    expect(code).toBe(0);
    expect(tookMs).toBeLessThan(15_000);
  });
});
