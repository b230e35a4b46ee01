import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createPostgresPool, type SqlPool } from '../../infra/db/sqlPool.js';

/** The template databases built by testDatabases.globalSetup.ts on the run's embedded PostgreSQL. */
export const TEMPLATES = {
  /** Fresh from initdb: no table of ours. */
  empty: 'template_empty',
  /** Every module's migrations applied, nothing else: what a service's first start would leave. */
  migrated: 'template_migrated',
} as const;

declare module 'vitest' {
  export interface ProvidedContext {
    /** The connection string of the run's embedded PostgreSQL (its `postgres` database). */
    testCluster: string;
  }
}

/** A new database on the server of `base` (a copy of `template` when given); `drop` removes it. */
export const databaseOn = async (
  base: string,
  template?: string,
): Promise<{ url: string; drop: () => Promise<void> }> => {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = createPostgresPool(base, 1);
  try {
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const drop = createPostgresPool(base, 1);
      try {
        await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await drop.end();
      }
    },
  };
};

/** A database of its own on the run's embedded PostgreSQL, copied from a template; `drop` removes it. */
export const embeddedTestDatabase = (template: keyof typeof TEMPLATES) =>
  databaseOn(inject('testCluster'), TEMPLATES[template]);

/**
 * A pool on a fresh copy of a template (see embeddedTestDatabase): the same database as initdb and the
 * migrations would make, for a fraction of the cost. Ending the pool drops the database.
 */
export const testDatabase = async (template: keyof typeof TEMPLATES): Promise<SqlPool> => {
  const { url, drop } = await embeddedTestDatabase(template);
  const pool = createPostgresPool(url);
  return {
    ...pool,
    async end() {
      try {
        await pool.end();
      } finally {
        await drop();
      }
    },
  };
};
