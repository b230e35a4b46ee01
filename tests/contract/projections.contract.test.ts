import { appendToStream } from '../../infra/eventStore/port.js';
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Migration } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createInProcessBus } from '../../infra/bus/inProcessBus.js';
import { createDb, type Db } from '../../infra/db/database.js';
import { migrateToLatest } from '../../infra/db/migrate.js';
import { createPostgresPool, type SqlPool } from '../../infra/db/sqlPool.js';
import { eventStoreMigrations } from '../../infra/eventStore/migrations.js';
import { eventStoreFunctions } from '../../infra/eventStore/functions.js';
import type { EventStore, RecordedEvent } from '../../infra/eventStore/port.js';
import { createPostgresEventStore } from '../../infra/eventStore/postgresEventStore.js';
import { createLogger } from '../../infra/logger.js';
import { projectionRunnerMigrations } from '../../projections/migrations.js';
import { testDatabase } from '../support/testDatabases.js';
import { projector, type Projector } from '../../projections/projector.js';
import { catchUpInlineProjections, inlineProjection, inlineProjectionMigrations } from '../../projections/inline.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import { READ_GAP_MS, ProjectionRunner } from '../../projections/runner.js';
import { freshDatabaseUrl } from '../support/testService.js';

/**
 * The projection runner and the rebuild against every database the service runs on, driven through a
 * small projector of this file's own: `<name>_events` has one row per Counted event with a counter of
 * how often it was applied, `<name>_streams` aggregates per stream, `<name>_log` has an identity column.
 */
const tablesOf = (name: string) => [`${name}_events`, `${name}_streams`, `${name}_log`];

const testMigrations = (names: string[]): Record<string, Migration> => ({
  '9001_projection_contract_tables': {
    async up(db: Kysely<unknown>) {
      for (const n of names) {
        const [events, streams, log] = tablesOf(n);
        await sql`CREATE TABLE ${sql.table(events)} (
          global_position bigint PRIMARY KEY,
          stream_id text NOT NULL,
          n int NOT NULL,
          applications int NOT NULL,
          applied_by text NOT NULL
        )`.execute(db);
        await sql`CREATE TABLE ${sql.table(streams)} (
          stream_id text PRIMARY KEY,
          events int NOT NULL,
          total bigint NOT NULL,
          last_position bigint NOT NULL
        )`.execute(db);
        await sql`CREATE TABLE ${sql.table(log)} (
          id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          global_position bigint NOT NULL UNIQUE,
          type text NOT NULL
        )`.execute(db);
      }
    },
  },
});

interface TestProjectorOptions {
  /** The handler throws after its first write on the Counted event with this n, the first time only. */
  failOn?: number;
  onFail?: () => void;
  /** The handler throws after its first write on every Counted event from this n on. */
  failFrom?: number;
  /** Written into every row: which runner applied it. */
  tag?: string;
}

const countingProjector = (name: string, options: TestProjectorOptions = {}): Projector => {
  const [events, streams, log] = tablesOf(name);
  let failed = false;
  return projector(name, {
    tables: tablesOf(name),
    handlers: {
      Counted: async (trx, e: RecordedEvent<string, { n: number }>) => {
        await sql`INSERT INTO ${sql.table(events)} AS t (global_position, stream_id, n, applications, applied_by)
          VALUES (${e.globalPosition}, ${e.streamId}, ${e.data.n}, 1, ${options.tag ?? '-'})
          ON CONFLICT (global_position) DO UPDATE SET applications = t.applications + 1`.execute(trx);
        if (options.failFrom !== undefined && e.data.n >= options.failFrom)
          throw new Error(`projector fails from event ${options.failFrom}`);
        if (options.failOn === e.data.n && !failed) {
          failed = true;
          options.onFail?.();
          throw new Error(`projector crashes on event ${e.data.n}`);
        }
        await sql`INSERT INTO ${sql.table(streams)} AS t (stream_id, events, total, last_position)
          VALUES (${e.streamId}, 1, ${e.data.n}, ${e.globalPosition})
          ON CONFLICT (stream_id) DO UPDATE
            SET events = t.events + 1, total = t.total + excluded.total,
            last_position = excluded.last_position`.execute(trx);
        await sql`INSERT INTO ${sql.table(log)} (global_position, type)
          VALUES (${e.globalPosition}, ${e.type})`.execute(trx);
      },
    },
  });
};

interface Env {
  pool: SqlPool;
  db: Db;
  store: EventStore;
  runner(projectors: Projector[], options?: { batchSize?: number; store?: EventStore }): ProjectionRunner;
  /** Another process on the same database (real PostgreSQL only). */
  second?(): Promise<Env>;
  close(): Promise<void>;
}

const open = async (pool: SqlPool, names: string[], migrate = true): Promise<Omit<Env, 'second'>> => {
  const db = createDb(pool);
  if (migrate)
    await migrateToLatest(
      db,
      {
        ...eventStoreMigrations,
        ...projectionRunnerMigrations,
        ...inlineProjectionMigrations,
        ...testMigrations(names),
      },
      eventStoreFunctions,
    );
  const store = createPostgresEventStore(pool, { pollMs: 20 });
  const runners: ProjectionRunner[] = [];
  return {
    pool,
    db,
    store,
    runner(projectors, options = {}) {
      const r = new ProjectionRunner({
        db,
        pool,
        store: options.store ?? store,
        bus: createInProcessBus(),
        logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
        projectors,
        pollMs: 20,
        batchSize: options.batchSize ?? 200,
      });
      runners.push(r);
      return r;
    },
    async close() {
      for (const r of runners) await r.stop();
      await store.close();
      await db.destroy();
    },
  };
};

const backends: { name: string; open(names: string[]): Promise<Env> }[] = [
  {
    name: 'embedded',
    async open(names) {
      return open(await testDatabase('empty'), names);
    },
  },
];
if (process.env.DATABASE_URL) {
  backends.push({
    name: 'postgres',
    async open(names) {
      const fresh = await freshDatabaseUrl();
      const env = await open(createPostgresPool(fresh.url), names);
      const others: Omit<Env, 'second'>[] = [];
      return {
        ...env,
        async second() {
          const other = await open(createPostgresPool(fresh.url), names, false);
          others.push(other);
          return other;
        },
        async close() {
          for (const o of others) await o.close();
          await env.close();
          await fresh.drop();
        },
      };
    },
  });
}

/** Appends `count` Counted events numbered from `firstN`, spread over `streams` streams, a few per append. */
const appendCounted = async (
  store: EventStore,
  count: number,
  { firstN = 1, streams = 20, perAppend = 25, prefix = 's' } = {},
) => {
  for (let i = 0; i < count; i += perAppend) {
    const n0 = firstN + i;
    const size = Math.min(perAppend, count - i);
    const stream = `${prefix}-${Math.floor(i / perAppend) % streams}`;
    // An event type the projector does not handle sits between handled ones.
    const events = Array.from({ length: size }, (_, k) => ({
      eventId: randomUUID(),
      type: 'Counted',
      data: { n: n0 + k },
    }));
    await appendToStream(store, stream, [...events, { eventId: randomUUID(), type: 'Ignored', data: {} }], {
      expectedRevision: 'any',
    });
  }
  return store.headPosition();
};

const rows = async (db: Db, table: string, orderBy: string) =>
  (await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)} ORDER BY ${sql.ref(orderBy)}`.execute(db)).rows;

/** The read model the projector must hold: computed straight from the log. */
const expectedFromLog = async (store: EventStore, tag: string) => {
  const events: Record<string, unknown>[] = [];
  const streams = new Map<string, { stream_id: string; events: number; total: number; last_position: number }>();
  for (let from = 0; ;) {
    const page = await store.readAll(from, 1000);
    if (page.length === 0) break;
    from = page[page.length - 1].globalPosition;
    for (const e of page as RecordedEvent<string, { n: number }>[]) {
      if (e.type !== 'Counted') continue;
      events.push({
        global_position: e.globalPosition,
        stream_id: e.streamId,
        n: e.data.n,
        applications: 1,
        applied_by: tag,
      });
      const s = streams.get(e.streamId) ?? { stream_id: e.streamId, events: 0, total: 0, last_position: 0 };
      s.events += 1;
      s.total += e.data.n;
      s.last_position = e.globalPosition;
      streams.set(e.streamId, s);
    }
  }
  return { events, streams: [...streams.values()].sort((a, b) => (a.stream_id < b.stream_id ? -1 : 1)) };
};

const expectReadModelMatchesLog = async (env: Env, name: string, tag = '-') => {
  const [events, streams, log] = tablesOf(name);
  const expected = await expectedFromLog(env.store, tag);
  expect(await rows(env.db, events, 'global_position')).toEqual(expected.events);
  expect(await rows(env.db, streams, 'stream_id')).toEqual(expected.streams);
  const logRows = await rows(env.db, log, 'global_position');
  expect(logRows.map((r) => r.global_position)).toEqual(expected.events.map((r) => r.global_position));
  // Identity values follow the order of application: increasing with the global position.
  const ids = logRows.map((r) => Number(r.id));
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  expect(new Set(ids).size).toBe(ids.length);
};

const WAIT_MS = 30_000;

describe.each(backends)('projections on $name', (backend) => {
  let env: Env | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  it('catches up with the log, then follows it live', async () => {
    env = await backend.open(['pt']);
    const head = await appendCounted(env.store, 1000);
    const runner = env.runner([countingProjector('pt')]);
    await runner.start();
    expect(await runner.waitFor(head, WAIT_MS)).toBe(true);
    await expectReadModelMatchesLog(env, 'pt');

    const live = await appendCounted(env.store, 300, { firstN: 1001 });
    expect(await runner.waitFor(live, WAIT_MS)).toBe(true);
    await expectReadModelMatchesLog(env, 'pt');
    expect(runner.positions().pt).toBe(live);
  });

  it('stores the checkpoint of a projector that handles none of the last events, once the log is quiet', async () => {
    env = await backend.open(['pt']);
    const idle = projector('p_idle', { tables: [], handlers: { NeverAppended: async () => undefined } });
    const runner = env.runner([countingProjector('pt'), idle]);
    await runner.start();
    // Two batches close together: the second one's idle move comes within IDLE_WRITE_MS of the first's write.
    expect(await runner.waitFor(await appendCounted(env.store, 1), WAIT_MS)).toBe(true);
    const head = await appendCounted(env.store, 1, { firstN: 2 });
    expect(await runner.waitFor(head, WAIT_MS)).toBe(true);
    // An API-only instance follows the stored row: it must reach the head although no event comes after.
    const stored = async () =>
      Number(
        (
          await env!.db
            .selectFrom('projection_checkpoints')
            .select('position')
            .where('name', '=', 'p_idle')
            .executeTakeFirst()
        )?.position ?? 0,
      );
    const deadline = Date.now() + 5_000;
    while ((await stored()) < head && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(await stored()).toBe(head);
  });

  it('reads the log at most once per READ_GAP_MS while appends keep coming, and applies every one', async () => {
    env = await backend.open(['pt']);
    const { store } = env;
    const reads: number[] = [];
    const counted: EventStore = {
      ...store,
      readAll: (from, limit) => {
        reads.push(performance.now());
        return store.readAll(from, limit);
      },
    };
    const runner = env.runner([countingProjector('pt')], { store: counted });
    await runner.start();
    // Forty appends one after the other, each waking the loop.
    const head = await appendCounted(store, 40, { perAppend: 1 });
    expect(await runner.waitFor(head, WAIT_MS)).toBe(true);
    await expectReadModelMatchesLog(env, 'pt');
    // A timer may fire up to a millisecond early.
    const gaps = reads.slice(1).map((t, i) => t - reads[i]);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(READ_GAP_MS - 1);
  });

  it('waitFor(position) resolves once the read model holds that event', async () => {
    env = await backend.open(['pt']);
    const runner = env.runner([countingProjector('pt')]);
    await runner.start();
    for (let n = 1; n <= 20; n++) {
      const { position } = await appendToStream(
        env.store,
        `w-${n}`,
        [{ eventId: randomUUID(), type: 'Counted', data: { n } }],
        {
          expectedRevision: 'no_stream',
        },
      );
      expect(await runner.waitFor(position, WAIT_MS)).toBe(true);
      const row = await sql<{ n: number }>`SELECT n FROM pt_events WHERE global_position = ${position}`.execute(env.db);
      expect(row.rows).toEqual([{ n }]);
    }
  });

  it('a projector that crashes mid-batch resumes without losing or repeating an effect', async () => {
    env = await backend.open(['pt']);
    const head = await appendCounted(env.store, 400);
    let crashes = 0;
    // Batches of 100 events: event 137 sits in the middle of the second batch.
    const runner = env.runner([countingProjector('pt', { failOn: 137, onFail: () => (crashes += 1) })], {
      batchSize: 100,
    });
    await runner.start();
    expect(await runner.waitFor(head, WAIT_MS)).toBe(true);
    expect(crashes).toBe(1);
    const count = await sql<{ rows: number; max: number; min: number }>`
      SELECT count(*)::int AS rows, max(applications) AS max, min(applications) AS min FROM pt_events`.execute(env.db);
    expect(count.rows[0]).toEqual({ rows: 400, max: 1, min: 1 });
    await expectReadModelMatchesLog(env, 'pt');
  });

  it('a crash followed by a restart resumes from the checkpoint', async () => {
    env = await backend.open(['pt']);
    const head = await appendCounted(env.store, 400);
    let crashed!: () => void;
    const crash = new Promise<void>((resolve) => (crashed = resolve));
    const first = env.runner([countingProjector('pt', { failOn: 250, onFail: () => crashed() })], { batchSize: 100 });
    await first.start();
    await crash;
    await first.stop();
    const second = env.runner([countingProjector('pt')], { batchSize: 100 });
    await second.start();
    expect(await second.waitFor(head, WAIT_MS)).toBe(true);
    await expectReadModelMatchesLog(env, 'pt');
  });

  it('a rebuilt read model equals the incrementally built one, row for row, and stays live', async () => {
    env = await backend.open(['pt']);
    const p = countingProjector('pt');
    const runner = env.runner([p], { batchSize: 500 });
    await runner.start();
    const head = await appendCounted(env.store, 2000, { streams: 40 });
    expect(await runner.waitFor(head, WAIT_MS)).toBe(true);
    const before = await Promise.all([
      rows(env.db, 'pt_events', 'global_position'),
      rows(env.db, 'pt_streams', 'stream_id'),
      rows(env.db, 'pt_log', 'id'),
    ]);
    expect(before[0]).toHaveLength(2000);

    const progress: number[] = [];
    const result = await rebuildProjection(
      { db: env.db, store: env.store, batchSize: 700, onProgress: (position) => progress.push(position) },
      p,
    );
    expect(result.position).toBe(head);
    expect(progress.at(-1)).toBe(head);
    const after = await Promise.all([
      rows(env.db, 'pt_events', 'global_position'),
      rows(env.db, 'pt_streams', 'stream_id'),
      rows(env.db, 'pt_log', 'id'),
    ]);
    expect(after).toEqual(before);
    const schemas = await sql`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'rebuild_%'`.execute(env.db);
    expect(schemas.rows).toEqual([]);

    const live = await appendCounted(env.store, 500, { firstN: 2001, streams: 40 });
    expect(await runner.waitFor(live, WAIT_MS)).toBe(true);
    await expectReadModelMatchesLog(env, 'pt');
    const ids = (await rows(env.db, 'pt_log', 'id')).map((r) => Number(r.id));
    expect(ids).toEqual(Array.from({ length: 2500 }, (_, i) => i + 1));
  });

  it('a rebuild while events keep arriving swaps in at the live position and loses nothing', async () => {
    env = await backend.open(['pt']);
    const p = countingProjector('pt');
    const runner = env.runner([p], { batchSize: 200 });
    await runner.start();
    await appendCounted(env.store, 1500);
    const { store, db } = env;
    const [, result] = await Promise.all([
      appendCounted(store, 1000, { firstN: 1501, perAppend: 10, prefix: 'live' }),
      rebuildProjection({ db, store, batchSize: 300 }, p),
    ]);
    const head = await store.headPosition();
    expect(result.position).toBeLessThanOrEqual(head);
    expect(await runner.waitFor(head, WAIT_MS)).toBe(true);
    await expectReadModelMatchesLog(env, 'pt');
  });

  it('a read model that becomes inline catches up with the log at start, from its old checkpoint, once', async () => {
    env = await backend.open(['pi']);
    const p = countingProjector('pi');
    // Kept by the runner until now: it has applied the first 300 events.
    const runner = env.runner([p]);
    await runner.start();
    expect(await runner.waitFor(await appendCounted(env.store, 300), WAIT_MS)).toBe(true);
    await runner.stop();
    await appendCounted(env.store, 200, { firstN: 301 });
    const deps = { db: env.db, pool: env.pool, logger: createLogger('silent') };
    await catchUpInlineProjections(deps, [p]);
    await expectReadModelMatchesLog(env, 'pi');
    expect(await env.db.selectFrom('projection_checkpoints').select('name').where('name', '=', 'pi').execute()).toEqual(
      [],
    );
    expect(await env.db.selectFrom('inline_projections').select('name').execute()).toEqual([{ name: 'pi' }]);
    // Listed: a second start replays nothing (every row is still applied once).
    await catchUpInlineProjections(deps, [p]);
    await expectReadModelMatchesLog(env, 'pi');
  });

  it('an inline read model rebuilt while appends keep writing it equals one built from the log', async () => {
    env = await backend.open(['pi']);
    const p = countingProjector('pi');
    const { db, pool } = env;
    const store = createPostgresEventStore(pool, {
      pollMs: 20,
      inline: inlineProjection([p], { bus: createInProcessBus(), db, logger: createLogger('silent'), kind: pool.kind }),
    });
    await appendCounted(store, 1500);
    await expectReadModelMatchesLog(env, 'pi');
    const [, result] = await Promise.all([
      appendCounted(store, 1000, { firstN: 1501, perAppend: 10, prefix: 'live' }),
      rebuildProjection({ db, store, batchSize: 300, inline: true }, p),
    ]);
    expect(result.position).toBeLessThanOrEqual(await store.headPosition());
    await appendCounted(store, 50, { firstN: 2501, prefix: 'after' });
    await expectReadModelMatchesLog(env, 'pi');
    expect(
      (await db.selectFrom('projection_checkpoints').select('name').where('name', '=', 'pi').execute()).length,
    ).toBe(0);
  });

  it('applies a batch of the log for every projector it feeds in one transaction, checkpoints included', async () => {
    env = await backend.open(['pa', 'pb', 'pc']);
    const head = await appendCounted(env.store, 300);
    const logged = (await env.store.readAll(0, 10_000)).length;
    const runner = env.runner(
      ['pa', 'pb', 'pc'].map((name) => countingProjector(name)),
      { batchSize: 100 },
    );
    await runner.start();
    expect(await runner.waitFor(head, WAIT_MS)).toBe(true);
    // Every row carries the id of the transaction that committed it (xmin): one per batch, shared by all three.
    const written = await sql<{ global_position: number; pa: string; pb: string; pc: string }>`
      SELECT global_position, a.xmin::text AS pa, b.xmin::text AS pb, c.xmin::text AS pc
      FROM pa_events a JOIN pb_events b USING (global_position) JOIN pc_events c USING (global_position)
      ORDER BY global_position`.execute(env.db);
    expect(written.rows).toHaveLength(300);
    for (const r of written.rows) expect([r.pb, r.pc]).toEqual([r.pa, r.pa]);
    expect(new Set(written.rows.map((r) => r.pa)).size).toBe(Math.ceil(logged / 100));
    const checkpoints = await sql<{ xid: string }>`
      SELECT DISTINCT xmin::text AS xid FROM projection_checkpoints WHERE name IN ('pa', 'pb', 'pc')`.execute(env.db);
    expect(checkpoints.rows).toEqual([{ xid: written.rows.at(-1)!.pa }]);
  });

  it('a projector that keeps failing backs off alone; the others apply every event once', async () => {
    env = await backend.open(['pt', 'pu', 'pf']);
    const head = await appendCounted(env.store, 400);
    let crashes = 0;
    const runner = env.runner(
      [
        // Fails once, in the batch it shares with the others: that batch rolls back for all three.
        countingProjector('pt', { failOn: 137, onFail: () => (crashes += 1) }),
        countingProjector('pu'),
        countingProjector('pf', { failFrom: 150 }),
      ],
      { batchSize: 100 },
    );
    await runner.start();
    expect(await runner.waitFor(head, WAIT_MS, ['pt', 'pu'])).toBe(true);
    expect(crashes).toBe(1);
    await expectReadModelMatchesLog(env, 'pt');
    await expectReadModelMatchesLog(env, 'pu');
    expect(runner.positions().pf).toBeLessThan(head);
    const failing = await sql<{ max: number; applications: number }>`
      SELECT max(n) AS max, max(applications) AS applications FROM pf_events`.execute(env.db);
    expect(failing.rows[0].max).toBeLessThan(150);
    expect(failing.rows[0].applications).toBe(1);
  });

  it.runIf(backend.name === 'postgres')(
    'a batch held open by one projector delays no write, and the others apply once it commits',
    async () => {
      env = await backend.open(['pt', 'ph']);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let holding!: () => void;
      const held = new Promise<void>((resolve) => (holding = resolve));
      // 'ph' writes its first row, then keeps the batch's transaction open until the test lets it go.
      const slow: Projector = projector('ph', {
        tables: tablesOf('ph'),
        handlers: {
          Counted: async (trx, e: RecordedEvent<string, { n: number }>) => {
            await sql`INSERT INTO ph_log (global_position, type) VALUES (${e.globalPosition}, ${e.type})`.execute(trx);
            holding();
            await gate;
          },
        },
      });
      const runner = env.runner([countingProjector('pt'), slow]);
      await runner.start();
      try {
        await appendCounted(env.store, 1);
        await held;
        // Appended while the batch is held open: the write answers.
        const { position } = await appendToStream(
          env.store,
          'while-held',
          [{ eventId: randomUUID(), type: 'Counted', data: { n: 2 } }],
          { expectedRevision: 'no_stream' },
        );
        // One transaction for both: 'pt' waits for the batch that 'ph' holds.
        expect(await runner.waitFor(position, 200, ['pt'])).toBe(false);
      } finally {
        release();
      }
      expect(await runner.waitFor(await env.store.headPosition(), WAIT_MS)).toBe(true);
      await expectReadModelMatchesLog(env, 'pt');
    },
  );

  it.runIf(backend.name === 'postgres')(
    'runs each projector in exactly one of two instances; the other takes over',
    async () => {
      env = await backend.open(['pa', 'pb']);
      const other = await env.second!();
      const a = env.runner([countingProjector('pa', { tag: 'A' }), countingProjector('pb', { tag: 'A' })]);
      const b = other.runner([countingProjector('pa', { tag: 'B' }), countingProjector('pb', { tag: 'B' })]);
      await a.start();
      await b.start();
      const head = await appendCounted(env.store, 600);
      expect(await a.waitFor(head, WAIT_MS)).toBe(true);
      // The instance that leads nothing follows the checkpoints that the leader writes.
      expect(await b.waitFor(head, WAIT_MS)).toBe(true);
      await expectReadModelMatchesLog(env, 'pa', 'A');
      await expectReadModelMatchesLog(env, 'pb', 'A');

      await a.stop();
      const next = await appendCounted(env.store, 600, { firstN: 601 });
      // Bounded wait: b claims the released locks on its next claim round, then catches up.
      expect(await b.waitFor(next, WAIT_MS)).toBe(true);
      for (const name of ['pa', 'pb']) {
        const byRunner = await sql<{ applied_by: string; rows: number; max: number }>`
        SELECT applied_by, count(*)::int AS rows, max(applications) AS max FROM ${sql.table(`${name}_events`)}
        GROUP BY applied_by ORDER BY applied_by`.execute(env.db);
        expect(byRunner.rows).toEqual([
          { applied_by: 'A', rows: 600, max: 1 },
          { applied_by: 'B', rows: 600, max: 1 },
        ]);
        const firstOfB = await sql<{
          n: number;
        }>`SELECT min(n) AS n FROM ${sql.table(`${name}_events`)} WHERE applied_by = 'B'`.execute(env.db);
        expect(firstOfB.rows[0].n).toBe(601);
      }
    },
  );
});
