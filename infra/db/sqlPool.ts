import { mkdirSync } from 'node:fs';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
  command: string;
}

export interface SqlClient {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
  release(): void;
}

/**
 * The smallest surface that both a `pg` pool and embedded PGlite can offer: Kysely's PostgresDialect
 * accepts it as its pool, and the event store uses it directly for the SQL that Kysely does not model.
 */
export interface SqlPool {
  readonly kind: 'postgres' | 'pglite';
  connect(): Promise<SqlClient>;
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
  end(): Promise<void>;
}

// Global positions, counts and ids stay far below 2^53; numbers are what every caller wants.
pg.types.setTypeParser(20, (v: string) => Number(v));

export const createPostgresPool = (connectionString: string, max = 10): SqlPool => {
  const pool = new pg.Pool({ connectionString, max });
  // An idle client that loses its server must not crash the process.
  pool.on('error', () => undefined);
  const wrap = (r: pg.QueryResult) => ({ rows: r.rows, rowCount: r.rowCount ?? 0, command: r.command });
  return {
    kind: 'postgres',
    async connect() {
      const client = await pool.connect();
      return {
        query: async (sql, params) => wrap(await client.query(sql, params as unknown[])),
        release: () => client.release(),
      };
    },
    query: async (sql, params) => wrap(await pool.query(sql, params as unknown[])),
    end: () => pool.end(),
  };
};

/**
 * PGlite is a single connection: a transaction must own it from BEGIN to COMMIT, so `connect()` hands
 * it out to one caller at a time and queues the rest.
 */
export const createPgLitePool = async (dir: string): Promise<SqlPool & { db: PGlite }> => {
  if (!dir.startsWith('memory://')) mkdirSync(dir, { recursive: true });
  const db = await PGlite.create(dir, { parsers: { 20: (v: string) => Number(v) } });
  let tail: Promise<void> = Promise.resolve();
  const acquire = (): Promise<() => void> => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const ready = tail.then(() => release);
    tail = tail.then(() => held);
    return ready;
  };
  const run = async <R>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> => {
    const r = await db.query<R>(sql, params as unknown[]);
    return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length, command: sql.trimStart().split(/\s/, 1)[0].toUpperCase() };
  };
  let closed = false;
  return {
    kind: 'pglite',
    db,
    async connect() {
      const release = await acquire();
      let released = false;
      return {
        query: run,
        release: () => {
          if (!released) {
            released = true;
            release();
          }
        },
      };
    },
    async query(sql, params) {
      const release = await acquire();
      try {
        return await run(sql, params);
      } finally {
        release();
      }
    },
    async end() {
      if (closed) return;
      closed = true;
      const release = await acquire();
      try {
        await db.close();
      } finally {
        release();
      }
    },
  };
};
