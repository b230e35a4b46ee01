import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { CLUSTER_USER, embeddedBinaries, startEmbeddedPostgres, type EmbeddedCluster } from './embeddedPostgres.js';

/**
 * Under root the embedded cluster runs as an account of its own and lets in only the service's own system
 * user, by peer authentication, never trust (docs/decisions/0074); a clone in a private directory still
 * starts, its data where that account can reach it, and the log says where.
 */
const skipReason = process.getuid?.() === 0 ? null : 'the suite does not run as root (the cluster runs as its user)';
if (skipReason) console.info(`skipped: the embedded cluster's own account under root: ${skipReason}`);

const uidOf = (pid: number) => Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
const postmasterOf = (dir: string) => Number.parseInt(readFileSync(join(dir, 'postmaster.pid'), 'utf8'), 10);
const idOf = (user: string): number | null => {
  try {
    return Number(execFileSync('id', ['-u', user], { encoding: 'utf8', stdio: 'pipe' }).trim());
  } catch {
    return null;
  }
};

describe.skipIf(skipReason !== null)("the embedded cluster's own account under root", { timeout: 120_000 }, () => {
  const clusters: EmbeddedCluster[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const c of clusters.splice(0)) await c.stop();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('runs as its own user, not the shared postgres one, and authenticates by peer, never trust', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'embedded-account-'));
    chmodSync(parent, 0o755);
    dirs.push(parent);
    const cluster = await startEmbeddedPostgres({ dir: join(parent, 'data') });
    clusters.push(cluster);
    const postmaster = uidOf(postmasterOf(cluster.dir));
    expect(postmaster).toBe(idOf(CLUSTER_USER));
    expect(postmaster).not.toBe(idOf('postgres'));

    const db = new pg.Client({ connectionString: cluster.url() });
    await db.connect();
    try {
      const { rows } = await db.query<{ type: string; auth_method: string; error: string | null }>(
        'SELECT type, auth_method, error FROM pg_hba_file_rules',
      );
      expect(rows).toEqual([{ type: 'local', auth_method: 'peer', error: null }]);
      const { rows: users } = await db.query<{ usename: string }>('SELECT DISTINCT usename FROM pg_stat_activity');
      expect(users.map((u) => u.usename)).toContain('postgres');
    } finally {
      await db.end();
    }
  });

  it('starts in a private directory, keeping its data where its user can reach it, and says where', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'embedded-private-'));
    dirs.push(parent);
    chmodSync(parent, 0o700);
    const asked = join(parent, 'data');
    const said: { obj: Record<string, unknown>; msg: string }[] = [];
    const logger = {
      info: () => undefined,
      warn: (obj: Record<string, unknown>, msg: string) => said.push({ obj, msg }),
    } as never;
    const cluster = await startEmbeddedPostgres({ dir: asked, logger });
    clusters.push(cluster);
    dirs.push(cluster.dir);
    expect(cluster.dir).toMatch(/^\/var\/lib\/water-pg\//);
    expect(said).toContainEqual({
      obj: { asked, dir: cluster.dir, user: CLUSTER_USER },
      msg: expect.stringContaining(`keeps its data in ${cluster.dir}`),
    });
    const db = new pg.Client({ connectionString: cluster.url() });
    await db.connect();
    expect((await db.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await db.end();
  });

  it.skipIf(idOf('postgres') === null)(
    'takes over a cluster an earlier version created under the shared postgres account with trust',
    async () => {
      const parent = mkdtempSync(join(tmpdir(), 'embedded-legacy-'));
      chmodSync(parent, 0o755);
      dirs.push(parent);
      const dir = join(parent, 'data');
      mkdirSync(dir, { mode: 0o700 });
      const [uid, gid] = [
        idOf('postgres')!,
        Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()),
      ];
      chownSync(dir, uid, gid);
      // As the earlier version did: initdb as the shared account, trust for everyone.
      execFileSync(embeddedBinaries().initdb, ['-D', dir, '-U', 'postgres', '-A', 'trust', '--no-sync'], {
        uid,
        gid,
        stdio: 'pipe',
      });
      const cluster = await startEmbeddedPostgres({ dir });
      clusters.push(cluster);
      expect(cluster.dir).toBe(dir);
      expect(uidOf(postmasterOf(dir))).toBe(idOf(CLUSTER_USER));
      const db = new pg.Client({ connectionString: cluster.url() });
      await db.connect();
      try {
        const { rows } = await db.query<{ type: string; auth_method: string }>(
          'SELECT type, auth_method FROM pg_hba_file_rules',
        );
        expect(rows).toEqual([{ type: 'local', auth_method: 'peer' }]);
      } finally {
        await db.end();
      }
    },
  );
});
