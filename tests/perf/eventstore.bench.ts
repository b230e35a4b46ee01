import { appendToStream } from '../../infra/eventStore/port.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { sql, type Kysely, type Migration } from 'kysely';
import pg from 'pg';
import { createInProcessBus } from '../../infra/bus/inProcessBus.js';
import { createDb, type Db } from '../../infra/db/database.js';
import { migrateToLatest } from '../../infra/db/migrate.js';
import { startEmbeddedPostgres } from '../../infra/db/embeddedPostgres.js';
import { createPostgresPool, type SqlPool } from '../../infra/db/sqlPool.js';
import { eventStoreMigrations } from '../../infra/eventStore/migrations.js';
import { eventStoreFunctions } from '../../infra/eventStore/functions.js';
import { createPostgresEventStore } from '../../infra/eventStore/postgresEventStore.js';
import { createLogger } from '../../infra/logger.js';
import { projectionRunnerMigrations } from '../../projections/migrations.js';
import { projector } from '../../projections/projector.js';
import { ProjectionRunner } from '../../projections/runner.js';

/**
 * Event store throughput beside raw baselines measured in the same run on the same database:
 * appends against single-row INSERTs (one transaction each) at the same concurrency, `$all` reads
 * against a plain keyset-paged SELECT, and projection replay against reading a page and writing it
 * with one multi-row INSERT per transaction. Phases alternate (baseline, adapter, baseline, adapter)
 * so that drift in the machine's load hits both sides alike.
 */

const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 2000);
const PAGE = 1000;
const DEFAULT_PG = 'postgres://postgres@127.0.0.1:5432/test';

declare module '../../infra/db/database.js' {
  interface Database {
    bench_replay: { global_position: number; stream_id: string; type: string; liters: number };
    bench_replay_raw: { global_position: number; stream_id: string; type: string; liters: number };
  }
}

const benchMigrations: Record<string, Migration> = {
  '9100_bench_tables': {
    async up(db: Kysely<unknown>) {
      // The events table without the append function around it: the raw insert baseline.
      await sql`CREATE TABLE raw_events (
        global_position bigserial PRIMARY KEY,
        transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
        event_id uuid NOT NULL UNIQUE,
        stream_id text NOT NULL,
        stream_position bigint NOT NULL,
        type text NOT NULL,
        data jsonb NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        recorded_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (stream_id, stream_position)
      )`.execute(db);
      for (const t of ['bench_replay', 'bench_replay_raw']) {
        await sql`CREATE TABLE ${sql.table(t)} (global_position bigint PRIMARY KEY, stream_id text NOT NULL,
          type text NOT NULL, liters int NOT NULL)`.execute(db);
      }
    },
  },
};

const payload = (i: number) => ({ orderId: i, liters: 20 + (i % 7), note: 'bench event with a small payload' });

interface Target {
  label: string;
  /** A pool of at most `max` connections on the target database. */
  pool(max: number): Promise<SqlPool>;
  drop(): Promise<void>;
}

const embeddedTarget = async (): Promise<Target> => {
  const cluster = await startEmbeddedPostgres({ dir: 'memory://' });
  return {
    label: 'embedded PostgreSQL (temporary cluster)',
    pool: async (max) => createPostgresPool(cluster.url(), max),
    drop: () => cluster.stop(),
  };
};

const reachable = async (url: string): Promise<boolean> => {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
};

const postgresTarget = async (base: string): Promise<Target> => {
  const name = `bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const version = (await admin.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0].v;
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    label: `PostgreSQL ${version} (${url.host}, fresh database ${name})`,
    pool: async (max) => createPostgresPool(url.toString(), max),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
};

/** Runs `op` on `concurrency` workers for `ms`; returns completed operations. */
const hammer = async (
  concurrency: number,
  ms: number,
  op: (worker: number, i: number) => Promise<unknown>,
): Promise<number> => {
  const deadline = performance.now() + ms;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (let i = 0; performance.now() < deadline; i++) {
        await op(w, i);
        done += 1;
      }
    }),
  );
  return done;
};

/** Alternates baseline and adapter phases; returns operations per second of each. */
const alternate = async (
  rounds: number,
  baseline: () => Promise<[number, number]>,
  adapter: () => Promise<[number, number]>,
) => {
  let b = [0, 0];
  let a = [0, 0];
  for (let r = 0; r < rounds; r++) {
    const [bn, bms] = await baseline();
    const [an, ams] = await adapter();
    b = [b[0] + bn, b[1] + bms];
    a = [a[0] + an, a[1] + ams];
  }
  return { baseline: (b[0] * 1000) / b[1], adapter: (a[0] * 1000) / a[1] };
};

const timed = async (f: () => Promise<number>): Promise<[number, number]> => {
  const t0 = performance.now();
  const n = await f();
  return [n, performance.now() - t0];
};

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

interface Row {
  what: string;
  adapter: number;
  baseline: number;
  baselineLabel: string;
  target?: string;
}

const printRow = (r: Row) => {
  const ratio = `${((100 * r.adapter) / r.baseline).toFixed(0)}%`;
  console.log(
    `  ${r.what.padEnd(44)}${fmt(r.adapter).padStart(9)}/s   ` +
      `${r.baselineLabel.padEnd(31)}${fmt(r.baseline).padStart(9)}/s   ` +
      `ratio ${ratio.padStart(4)}${r.target ? `   ${r.target}` : ''}`,
  );
};

const appends = async (target: Target, concurrency: number, isPostgres: boolean): Promise<Row> => {
  const pool = await target.pool(concurrency);
  const store = createPostgresEventStore(pool);
  const run = randomBytes(3).toString('hex');
  const raw = () =>
    timed(() =>
      hammer(concurrency, PHASE_MS, (w, i) =>
        pool.query(
          'INSERT INTO raw_events (event_id, stream_id, stream_position, ' +
            'type, data, metadata) VALUES ($1, $2, 0, $3, $4, $5)',
          [randomUUID(), `raw-${run}-${w}-${i}-${randomUUID()}`, 'BenchEvent', JSON.stringify(payload(i)), '{}'],
        ),
      ),
    );
  const adapter = () =>
    timed(() =>
      hammer(concurrency, PHASE_MS, (w, i) =>
        appendToStream(
          store,
          `es-${run}-${w}-${i}-${randomUUID()}`,
          [{ eventId: randomUUID(), type: 'BenchEvent', data: payload(i) }],
          {
            expectedRevision: 'no_stream',
          },
        ),
      ),
    );
  // Warm both paths (connections, plans) before measuring.
  await hammer(concurrency, 300, (w, i) => pool.query('SELECT $1::int', [w + i]));
  const r = await alternate(2, raw, adapter);
  await pool.end();
  return {
    what: `appends, ${concurrency} connection${concurrency > 1 ? 's' : ''}`,
    adapter: r.adapter,
    baseline: r.baseline,
    baselineLabel: 'raw INSERT',
    target: isPostgres ? `target ≥75%: ${r.adapter >= 0.75 * r.baseline ? 'met' : 'MISSED'}` : undefined,
  };
};

/** Tops the log up with multi-event appends so reads and replay have enough to chew on. */
const seed = async (pool: SqlPool, atLeast: number) => {
  const store = createPostgresEventStore(pool);
  let head = await store.headPosition();
  for (let s = 0; head < atLeast; s++) {
    const events = Array.from({ length: 200 }, (_, i) => ({
      eventId: randomUUID(),
      type: i % 5 === 0 ? 'Other' : 'BenchEvent',
      data: payload(i),
    }));
    head = (await appendToStream(store, `seed-${randomUUID()}`, events, { expectedRevision: 'no_stream' })).position;
  }
  return head;
};

const reads = async (pool: SqlPool, head: number): Promise<Row> => {
  const store = createPostgresEventStore(pool);
  const sweep = async (page: (from: number) => Promise<number | undefined>) => {
    const deadline = performance.now() + PHASE_MS;
    let n = 0;
    for (let from = 0; performance.now() < deadline;) {
      const last = await page(from);
      if (last === undefined) from = 0;
      else {
        n += PAGE;
        from = last;
        if (from >= head) from = 0;
      }
    }
    return n;
  };
  const raw = () =>
    timed(() =>
      sweep(async (from) => {
        const { rows } = await pool.query<{ global_position: number }>(
          `SELECT global_position, event_id, stream_id, stream_position, type, data, metadata, recorded_at
             FROM events WHERE global_position > $1 ORDER BY global_position LIMIT $2`,
          [from, PAGE],
        );
        return rows.at(-1)?.global_position;
      }),
    );
  const adapter = () => timed(() => sweep(async (from) => (await store.readAll(from, PAGE)).at(-1)?.globalPosition));
  const r = await alternate(2, raw, adapter);
  return {
    what: '$all reads (pages of 1000)',
    adapter: r.adapter,
    baseline: r.baseline,
    baselineLabel: 'keyset SELECT',
    target: undefined,
  };
};

const replay = async (pool: SqlPool, db: Db, head: number, isPostgres: boolean): Promise<Row> => {
  const store = createPostgresEventStore(pool);
  const benchProjector = projector('bench_replay', {
    tables: ['bench_replay'],
    handlers: {
      BenchEvent: async (trx, e) => {
        await trx
          .insertInto('bench_replay')
          .values({ global_position: e.globalPosition, stream_id: e.streamId, type: e.type, liters: e.data.liters })
          .execute();
      },
    },
    // The fast path a real read model uses on replay: one multi-row INSERT per batch.
    applyBatch: async (trx, events) => {
      await trx
        .insertInto('bench_replay')
        .values(
          events.map((e) => ({
            global_position: e.globalPosition,
            stream_id: e.streamId,
            type: e.type,
            liters: (e.data as { liters: number }).liters,
          })),
        )
        .execute();
    },
  });
  const deadline = (ms: number) => performance.now() + ms;

  const raw = async (): Promise<[number, number]> => {
    await pool.query('TRUNCATE bench_replay_raw');
    const t0 = performance.now();
    const stop = deadline(10_000);
    let n = 0;
    for (let from = 0; from < head && performance.now() < stop;) {
      const { rows } = await pool.query<{
        global_position: number;
        stream_id: string;
        type: string;
        data: { liters: number };
      }>(
        `SELECT global_position, stream_id, type, data FROM events WHERE global_position > $1 ORDER BY global_position
          LIMIT $2`,
        [from, 500],
      );
      if (rows.length === 0) break;
      from = rows[rows.length - 1].global_position;
      n += rows.length;
      const mine = rows.filter((r) => r.type === 'BenchEvent');
      await db.transaction().execute(async (trx) => {
        if (mine.length > 0) {
          await trx
            .insertInto('bench_replay_raw')
            .values(
              mine.map((r) => ({
                global_position: r.global_position,
                stream_id: r.stream_id,
                type: r.type,
                liters: r.data.liters,
              })),
            )
            .execute();
        }
      });
    }
    return [n, performance.now() - t0];
  };

  const adapter = async (): Promise<[number, number]> => {
    await pool.query('TRUNCATE bench_replay');
    await pool.query(`DELETE FROM projection_checkpoints WHERE name = 'bench_replay'`);
    const runner = new ProjectionRunner({
      db,
      pool,
      store,
      bus: createInProcessBus(),
      logger: createLogger('silent'),
      projectors: [benchProjector],
      pollMs: 10,
      // Runs inside this process only: no advisory lock needed.
      lead: true,
    });
    const t0 = performance.now();
    await runner.start();
    await runner.waitFor(head, 10_000);
    const ms = performance.now() - t0;
    const reached = runner.positions().bench_replay;
    await runner.stop();
    return [reached, ms];
  };
  const r = await alternate(1, raw, adapter);
  return {
    what: 'projection replay (runner, batches of 500)',
    adapter: r.adapter,
    baseline: r.baseline,
    baselineLabel: 'SELECT page + multi-row INSERT',
    target: isPostgres ? `target ≥20,000/s: ${r.adapter >= 20_000 ? 'met' : 'MISSED'}` : undefined,
  };
};

const benchTarget = async (target: Target, isPostgres: boolean) => {
  console.log(`\n${target.label}`);
  const setup = await target.pool(2);
  const db = createDb(setup);
  try {
    await migrateToLatest(
      db,
      { ...eventStoreMigrations, ...projectionRunnerMigrations, ...benchMigrations },
      eventStoreFunctions,
    );
    const rows: Row[] = [];
    for (const c of [1, 8]) {
      rows.push(await appends(target, c, isPostgres));
      printRow(rows[rows.length - 1]);
    }
    const head = await seed(setup, isPostgres ? 100_000 : 30_000);
    rows.push(await reads(setup, head));
    printRow(rows[rows.length - 1]);
    rows.push(await replay(setup, db, head, isPostgres));
    printRow(rows[rows.length - 1]);
    console.log(`  (${fmt(head)} events in the log; ${PHASE_MS} ms per phase)`);
  } finally {
    await db.destroy();
    await target.drop();
  }
};

export const run = async (): Promise<void> => {
  await benchTarget(await embeddedTarget(), false);
  const url = process.env.DATABASE_URL ?? ((await reachable(DEFAULT_PG)) ? DEFAULT_PG : undefined);
  if (!url) {
    console.log(`\nPostgreSQL: skipped (DATABASE_URL unset and ${DEFAULT_PG} not reachable)`);
    return;
  }
  await benchTarget(await postgresTarget(url), true);
};
