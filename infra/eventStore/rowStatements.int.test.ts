import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../tests/support/backends.js';
import { createDb, type Db } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import type { SqlPool } from '../db/sqlPool.js';
import { eventStoreMigrations } from './migrations.js';

/**
 * `es_apply_rows` keeps each statement's rewrite for every session, under the schema it was made for: a new
 * session (a newly started service's connections) reuses it instead of working it out again, and a rewrite
 * made under another set of migrations is never used.
 */

describe.each(backends)('row statements kept across sessions ($name)', (backend) => {
  let pool: SqlPool;
  let db: Db;
  let drop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ pool, drop } = await backend.open());
    db = createDb(pool);
    await migrateToLatest(db, eventStoreMigrations);
    await sql`CREATE TABLE rs_notes (id text PRIMARY KEY, n int NOT NULL)`.execute(db);
    await sql`CREATE TABLE rs_other (id text PRIMARY KEY, n int NOT NULL)`.execute(db);
  });
  afterAll(async () => {
    await db?.destroy();
    await drop?.();
  });

  /** es_apply_rows on a session that kept nothing of its own (RESET ALL), as a new connection would. */
  const applyOnNewSession = async (rows: { sql: string; params: (string | null)[] }[]) => {
    const client = await pool.connect();
    try {
      await client.query('RESET ALL');
      await client.query('SELECT es_apply_rows($1::jsonb)', [JSON.stringify(rows)]);
    } finally {
      client.release();
    }
  };
  const keyOf = async (statement: string) =>
    (await sql<{ key: string }>`SELECT 'es_rows.s' || md5(${statement}) AS key`.execute(db)).rows[0].key;
  const version = async () =>
    (await sql<{ v: string }>`SELECT md5(string_agg(name, ',' ORDER BY name)) AS v FROM kysely_migration`.execute(db))
      .rows[0].v;
  const notes = (table: 'rs_notes' | 'rs_other') =>
    sql<{ id: string; n: number }>`SELECT id, n FROM ${sql.table(table)} ORDER BY id`.execute(db).then((r) => r.rows);

  it('stores the rewrite of a statement it meets, under the schema it was made for', async () => {
    const statement = 'insert into "rs_notes" ("id", "n") values ($1, $2)';
    await applyOnNewSession([{ sql: statement, params: ['a', '1'] }]);
    const kept = await sql<{ schema_version: string; rewritten: string }>`
      SELECT schema_version, rewritten FROM es_row_statements WHERE key = ${await keyOf(statement)}`.execute(db);
    expect(kept.rows).toEqual([
      { schema_version: await version(), rewritten: expect.stringContaining('($1->>1)::integer') },
    ]);
    expect(await notes('rs_notes')).toEqual([{ id: 'a', n: 1 }]);
  });

  it("a new session runs the rewrite kept under today's schema, and never one kept under another", async () => {
    const statement = 'insert into "rs_notes" ("id", "n") values ($1, $2) on conflict do nothing';
    const key = await keyOf(statement);
    // Told apart by where they write: a rewrite that is used writes to rs_other.
    await sql`INSERT INTO es_row_statements (key, schema_version, rewritten) VALUES
      (${key}, 'an older schema', 'INSERT INTO rs_other (id, n) VALUES (($1->>0)::text, -1)'),
      (${key}, ${await version()}, 'INSERT INTO rs_other (id, n) VALUES (($1->>0)::text, ($1->>1)::integer)')`.execute(
      db,
    );
    await applyOnNewSession([{ sql: statement, params: ['b', '2'] }]);
    expect(await notes('rs_other')).toEqual([{ id: 'b', n: 2 }]);

    await sql`DELETE FROM es_row_statements WHERE key = ${key} AND schema_version <> 'an older schema'`.execute(db);
    await applyOnNewSession([{ sql: statement, params: ['c', '3'] }]);
    expect(await notes('rs_notes')).toContainEqual({ id: 'c', n: 3 });
    expect(await notes('rs_other')).toEqual([{ id: 'b', n: 2 }]);
  });
});
