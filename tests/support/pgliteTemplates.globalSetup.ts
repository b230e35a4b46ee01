import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { createDb } from '../../infra/db/database.js';
import { migrateToLatest } from '../../infra/db/migrate.js';
import { createPgLitePool, type PgLitePool } from '../../infra/db/sqlPool.js';
import { migrationsOf } from '../../app/modules.js';
import type { PgLiteTemplates } from './pgliteTemplates.js';

/**
 * Builds the PGlite data directories that test databases start from (tests/support/pgliteTemplates.ts),
 * once per run: PGlite's initdb costs seconds of CPU per database, and the suite opens hundreds.
 */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'pglite-templates-'));
  const dump = async (pool: PgLitePool, name: string) => {
    const path = join(dir, `${name}.tar`);
    writeFileSync(path, new Uint8Array(await (await pool.db.dumpDataDir('none')).arrayBuffer()));
    return path;
  };
  // One database: dumped fresh, then migrated and dumped again.
  const pool = await createPgLitePool('memory://');
  const empty = await dump(pool, 'empty');
  const db = createDb(pool);
  await migrateToLatest(db, migrationsOf());
  const migrated = await dump(pool, 'migrated');
  await db.destroy();
  project.provide('pgliteTemplates', { empty, migrated } satisfies PgLiteTemplates);
  return () => rmSync(dir, { recursive: true, force: true });
}
