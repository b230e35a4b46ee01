import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../../tests/support/testService.js';
import { createPostgresPool, type SqlPool } from './sqlPool.js';

/**
 * The PostgreSQL pool as the write path relies on it: a refused statement (a unique key, a redelivered
 * append) costs no connection, and a data statement is prepared once per connection.
 */
describe.skipIf(!process.env.DATABASE_URL)('PostgreSQL pool', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabaseUrl>>;
  let pool: SqlPool;
  beforeAll(async () => {
    fresh = await freshDatabaseUrl();
    // One connection: the same backend answers every statement unless the pool drops it.
    pool = createPostgresPool(fresh.url, 1);
    await pool.query('CREATE TABLE once (id int PRIMARY KEY)');
  });
  afterAll(async () => {
    await pool?.end();
    await fresh?.drop();
  });

  const backend = async () => (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;

  it('keeps its connection after a statement the database refuses', async () => {
    const before = await backend();
    await pool.query('INSERT INTO once (id) VALUES (1)');
    await expect(pool.query('INSERT INTO once (id) VALUES (1)')).rejects.toMatchObject({ code: '23505' });
    expect(await backend()).toBe(before);
  });

  it('prepares a data statement once on its connection and reuses it', async () => {
    const text = 'SELECT count(*)::int AS n FROM once WHERE id > $1';
    await pool.query(text, [0]);
    await pool.query(text, [0]);
    const { rows } = await pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1',
      [text],
    );
    expect(rows[0].n).toBe(1);
  });
});

/** Where the local server (Debian's packaging) keeps its socket. */
const LOCAL_SOCKET_DIR = '/var/run/postgresql';

describe.skipIf(!process.env.DATABASE_URL || !existsSync(`${LOCAL_SOCKET_DIR}/.s.PGSQL.5432`))(
  'PostgreSQL pool over a Unix socket (runs with DATABASE_URL and a server on this host with its socket in /var/run/postgresql)',
  () => {
    it('connects with DATABASE_URL naming a socket directory as host (no TCP)', async () => {
      const fresh = await freshDatabaseUrl();
      const tcp = new URL(fresh.url);
      const database = tcp.pathname.slice(1);
      const pool = createPostgresPool(
        `postgres://${tcp.username}@/${database}?host=${encodeURIComponent(LOCAL_SOCKET_DIR)}`,
        1,
      );
      try {
        const { rows } = await pool.query<{ addr: string | null; db: string }>(
          'SELECT inet_server_addr() AS addr, current_database() AS db',
        );
        // inet_server_addr() is NULL on a Unix-socket connection.
        expect(rows).toEqual([{ addr: null, db: database }]);
      } finally {
        await pool.end();
        await fresh.drop();
      }
    });
  },
);
