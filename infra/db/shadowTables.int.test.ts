import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../tests/support/backends.js';
import { shadowTables } from './shadowTables.js';
import type { SqlPool } from './sqlPool.js';

/**
 * The start-up warm-up's isolation (app/warmUp.ts): a session whose tables are shadowed writes only to its
 * own copies. What it writes never reaches the real tables or sequences, no other session sees it, and the
 * copies go with the session.
 */
describe.each(backends)('shadow tables ($name)', (backend) => {
  let pool: SqlPool;
  let drop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ pool, drop } = await backend.open());
    await pool.query('CREATE SEQUENCE tickets_seq');
    await pool.query(
      `CREATE TABLE tickets (id bigint PRIMARY KEY DEFAULT nextval('tickets_seq'), note text NOT NULL UNIQUE)`,
    );
    await pool.query('CREATE TABLE kinds (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text NOT NULL)');
    await pool.query("INSERT INTO kinds (name) VALUES ('water'), ('tank')");
    await pool.query("INSERT INTO tickets (note) VALUES ('real one')");
  });
  afterAll(async () => {
    await pool?.end();
    await drop?.();
  });

  const count = async (sql: string) => Number((await pool.query<{ n: string }>(sql)).rows[0].n);

  it('writes to private copies that start where the real sequences stand, and leaves nothing behind', async () => {
    const session = await pool.openSession!();
    try {
      await shadowTables(session, ['kinds']);
      // The copied table has its rows; the other starts empty.
      expect((await session.query('SELECT name FROM kinds ORDER BY id')).rows).toEqual([
        { name: 'water' },
        { name: 'tank' },
      ]);
      expect((await session.query('SELECT count(*)::int AS n FROM tickets')).rows[0]).toEqual({ n: 0 });
      // A default and a named sequence give the next real number, without taking it.
      const inserted = await session.query<{ id: number }>(
        "INSERT INTO tickets (note) VALUES ('rehearsal') RETURNING id",
      );
      expect(inserted.rows[0].id).toBe(2);
      expect((await session.query("SELECT nextval('tickets_seq')::int AS id")).rows[0]).toEqual({ id: 3 });
      await session.query("INSERT INTO kinds (name) VALUES ('rehearsal kind')");
      // A unique key of the real table holds on the copy.
      await expect(session.query("INSERT INTO tickets (note) VALUES ('rehearsal')")).rejects.toMatchObject({
        code: '23505',
      });

      // Meanwhile, every other session sees the real tables as they were.
      expect(await count("SELECT count(*) AS n FROM tickets WHERE note = 'rehearsal'")).toBe(0);
      expect(await count('SELECT count(*) AS n FROM kinds')).toBe(2);
    } finally {
      session.release();
    }
    // The real sequence never moved: the next real ticket is number 2.
    const next = await pool.query<{ id: number }>("INSERT INTO tickets (note) VALUES ('second real one') RETURNING id");
    expect(next.rows[0].id).toBe(2);
    await expectNoTemporaryTables();
  });

  const expectNoTemporaryTables = async () => {
    // The session closes asynchronously: its copies are gone once its backend has ended.
    for (let i = 0; i < 50; i++) {
      if ((await count("SELECT count(*) AS n FROM pg_class WHERE relpersistence = 't'")) === 0) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await count("SELECT count(*) AS n FROM pg_class WHERE relpersistence = 't'")).toBe(0);
  };
});
