import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import type { SqlPool } from './sqlPool.js';

/**
 * The read-model schema. Each area adds its tables by declaration merging from its own file:
 *   declare module '../../infra/db/database.js' { interface Database { order_views: OrderViewRow } }
 * so that no shared file has to list every table.
 */
// Each module adds its tables by declaration merging.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Database {}

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;

export const createDb = (pool: SqlPool): Db =>
  new Kysely<Database>({
    // Kysely drives our pool through the pg pool surface.
    dialect: new PostgresDialect({ pool: pool as never }),
  });

/** Resolves when the database answers a query (readiness). */
export const pingDatabase = async (db: Db): Promise<void> => {
  await sql`SELECT 1`.execute(db);
};
