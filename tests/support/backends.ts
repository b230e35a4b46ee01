import { createPostgresPool, type SqlPool } from '../../infra/db/sqlPool.js';
import { pgLiteFrom } from './pgliteTemplates.js';
import { freshDatabaseUrl } from './testService.js';

export interface Backend {
  name: string;
  /** A pool on an empty database of its own; `drop` removes that database afterwards. */
  open(): Promise<{ pool: SqlPool; drop?: () => Promise<void> }>;
}

/** The databases an integration test runs on: in-memory PGlite always, PostgreSQL too when DATABASE_URL is set. */
export const backends: Backend[] = [
  { name: 'pglite', open: async () => ({ pool: await pgLiteFrom('empty') }) },
  ...(process.env.DATABASE_URL
    ? [
        {
          name: 'postgres',
          async open() {
            const fresh = await freshDatabaseUrl();
            return { pool: createPostgresPool(fresh.url), drop: fresh.drop };
          },
        },
      ]
    : []),
];
