import { createHash } from 'node:crypto';
import pg from 'pg';
import { asUnavailable, isConnectionLoss } from './databaseUnavailable.js';

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
  command: string;
}

export interface SqlClient {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
  release(): void;
  /** True once the connection under this client is gone (its session and advisory locks with it). */
  readonly broken: boolean;
}

/**
 * The surface of a `pg` pool that we use: Kysely's PostgresDialect accepts it as its pool, and the event
 * store uses it directly for the SQL that Kysely does not model. The embedded default is a `pg` pool too,
 * on a PostgreSQL cluster of its own (infra/db/embeddedPostgres.ts).
 */
export interface SqlPool {
  readonly kind: 'postgres';
  connect(): Promise<SqlClient>;
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
  end(): Promise<void>;
  /** Connections open, idle, and callers waiting for one (the metrics' pool gauges); a pool of one has none. */
  usage?(): { total: number; idle: number; waiting: number };
}

// Global positions, counts and ids stay far below 2^53; numbers are what every caller wants.
pg.types.setTypeParser(20, (v: string) => Number(v));

const PREPARED_KINDS = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b/i;
const MAX_PREPARED_PARAMS = 16;
const preparedNames = new Map<string, string>();

/**
 * Every data statement is prepared once per connection under a name derived from its text, so PostgreSQL
 * parses and plans it once instead of at every call (planning was a large share of a write's server time).
 * Statements with long parameter lists (an IN list of any length) stay unnamed: each length would be one
 * more prepared statement in every connection.
 */
const preparedName = (sql: string, params: readonly unknown[] | undefined): string | undefined => {
  if ((params?.length ?? 0) > MAX_PREPARED_PARAMS || !PREPARED_KINDS.test(sql)) return undefined;
  let name = preparedNames.get(sql);
  if (name === undefined) {
    name = 'q' + createHash('sha1').update(sql).digest('base64url');
    if (preparedNames.size < 10_000) preparedNames.set(sql, name);
  }
  return name;
};

export const createPostgresPool = (connectionString: string, max = 10): SqlPool => {
  // A bounded connect: while the server is away a request fails fast with 503 instead of queueing forever.
  const pool = new pg.Pool({ connectionString, max, connectionTimeoutMillis: 5000 });
  // An idle client that loses its server must not crash the process.
  pool.on('error', () => undefined);
  // Nor may any other: pg emits a terminated session's error on the client whenever no query of its is
  // active, and the pool's listener and ours are swapped at check-out and release. A listener for the
  // client's whole life closes every such gap; the holder still learns of the loss from its next query.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const wrap = (r: pg.QueryResult) => ({ rows: r.rows, rowCount: r.rowCount ?? 0, command: r.command });
  const config = (sql: string, params: readonly unknown[] | undefined): pg.QueryConfig => ({
    text: sql,
    values: params as unknown[] | undefined,
    name: preparedName(sql, params),
  });
  /** A statement on one connection, prepared by its text; a failure as the pool's callers expect it. */
  const queryOn =
    (client: pg.ClientBase): SqlClient['query'] =>
    async (sql, params) => {
      try {
        return wrap(await client.query(config(sql, params)));
      } catch (err) {
        throw asUnavailable(err);
      }
    };
  return {
    kind: 'postgres',
    usage: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async connect() {
      const client = await pool.connect().catch((err) => {
        throw asUnavailable(err);
      });
      // A checked-out client has no listener of the pool's: without ours, a terminated session is an
      // unhandled 'error' event that kills the process. The holder learns of it from its next query.
      let lost: unknown = null;
      const onError = (err: unknown) => (lost = err);
      client.on('error', onError);
      let released = false;
      return {
        query: queryOn(client),
        release() {
          if (released) return;
          released = true;
          client.removeListener('error', onError);
          // A broken client is destroyed rather than handed to the next caller.
          client.release(lost ? (lost as Error) : undefined);
        },
        get broken() {
          return lost !== null;
        },
      };
    },
    // Not pool.query: it destroys the connection after any failed statement, and a refused statement (a
    // unique key, a check) leaves the connection as good as it was. Only a lost connection is dropped.
    async query(sql, params) {
      const client = await pool.connect().catch((err) => {
        throw asUnavailable(err);
      });
      let lost: Error | undefined;
      try {
        return wrap(await client.query(config(sql, params)));
      } catch (err) {
        if (isConnectionLoss(err)) lost = err as Error;
        throw asUnavailable(err);
      } finally {
        client.release(lost);
      }
    },
    end: () => pool.end(),
  };
};

/**
 * One connection as a pool (release keeps it open): Kysely then runs every statement on it, inside
 * whatever transaction it holds, such as an append's.
 */
export const onOneConnection = (client: SqlClient, kind: SqlPool['kind']): SqlPool => ({
  kind,
  connect: async () => ({
    query: client.query.bind(client),
    release: () => undefined,
    get broken() {
      return client.broken;
    },
  }),
  query: (text, params) => client.query(text, params),
  end: async () => undefined,
});

/** `work` on one connection of `pool`, in a transaction of its own: committed when it returns, else rolled back. */
export const inTransaction = async <T>(pool: SqlPool, work: (client: SqlClient) => Promise<T>): Promise<T> => {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    try {
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  } finally {
    client.release();
  }
};
