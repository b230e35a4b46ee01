import { createPostgresPool, type SqlPool } from '../../infra/db/sqlPool.js';
import { testDatabase } from './testDatabases.js';
import { freshDatabaseUrl } from './testService.js';

export interface Backend {
  name: string;
  /** A pool on an empty database of its own; `drop` removes that database afterwards. */
  open(): Promise<{ pool: SqlPool; drop?: () => Promise<void> }>;
}

/** The databases an integration test runs on: the embedded PostgreSQL always, DATABASE_URL's server too when set. */
export const backends: Backend[] = [
  { name: 'embedded', open: async () => ({ pool: await testDatabase('empty') }) },
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
