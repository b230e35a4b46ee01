import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { createPgLitePool, type PgLitePool } from '../../infra/db/sqlPool.js';

/** Paths of the dumped data directories built by pgliteTemplates.globalSetup.ts. */
export interface PgLiteTemplates {
  /** Fresh from initdb: no table of ours. */
  empty: string;
  /** Every module's migrations applied, nothing else: what a service's first start would leave. */
  migrated: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplates: PgLiteTemplates;
  }
}

const loaded = new Map<string, Blob>();

/**
 * An in-memory PGlite database loaded from a template instead of made by initdb (and migrations): the
 * same database, for a fraction of the start-up.
 */
export const pgLiteFrom = (
  template: keyof PgLiteTemplates,
  options: { sharedBuffersMb?: number } = {},
): Promise<PgLitePool> => {
  const path = inject('pgliteTemplates')[template];
  let data = loaded.get(path);
  if (!data) loaded.set(path, (data = new Blob([readFileSync(path)])));
  return createPgLitePool('memory://', { ...options, loadDataDir: data });
};
