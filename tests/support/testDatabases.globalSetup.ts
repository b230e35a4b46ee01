import type { TestProject } from 'vitest/node';
import { createDb } from '../../infra/db/database.js';
import { startEmbeddedPostgres } from '../../infra/db/embeddedPostgres.js';
import { migrateToLatest } from '../../infra/db/migrate.js';
import { createPostgresPool } from '../../infra/db/sqlPool.js';
import { functionsOf, migrationsOf } from '../../app/modules.js';
import { TEMPLATES } from './testDatabases.js';

/**
 * One embedded PostgreSQL for the whole run, and the template databases that test databases are copied
 * from (tests/support/testDatabases.ts): `CREATE DATABASE … TEMPLATE` instead of initdb and the migrations
 * for each of the hundreds of databases the suite opens. The cluster is a throwaway: no fsync.
 */
export default async function setup(project: TestProject) {
  const cluster = await startEmbeddedPostgres({
    dir: 'memory://',
    settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '500' },
  });
  try {
    const admin = createPostgresPool(cluster.url(), 1);
    for (const name of Object.values(TEMPLATES)) await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const db = createDb(createPostgresPool(cluster.url(TEMPLATES.migrated), 1));
    await migrateToLatest(db, migrationsOf(), functionsOf());
    await db.destroy();
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  project.provide('testCluster', cluster.url());
  return () => cluster.stop();
}
