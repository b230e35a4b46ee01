import { sql, type Generated, type Kysely, type Migration } from 'kysely';
import type { Bus, BusMessage } from '../infra/bus/port.js';
import { createDb, type Db, type Trx } from '../infra/db/database.js';
import { onOneConnection, type SqlClient, type SqlPool } from '../infra/db/sqlPool.js';
import { APPEND_LOCK_KEY, APPENDING_LOCK_CLASS } from '../infra/eventStore/functions.js';
import { columns, toRecorded, type EventRow, type InlineProjection } from '../infra/eventStore/postgresEventStore.js';
import type { RecordedEvent } from '../infra/eventStore/port.js';
import type { Logger } from '../infra/logger.js';
import type { Projector } from './projector.js';
import { applyEvents, messagesOf } from './runner.js';

/**
 * Inline read models (docs/decisions/0003-inline-and-async-read-models.md): applied in the append's
 * own transaction, so the answer to a write reads them at once and they never lag the log. They keep no
 * checkpoint: `inline_projections` lists those that are complete, and a start-up catches up any other
 * (a read model that became inline, or a new one) before this process appends anything.
 */
declare module '../infra/db/database.js' {
  interface Database {
    inline_projections: { name: string; caught_up_at: Generated<Date> };
  }
}

export const inlineProjectionMigrations: Record<string, Migration> = {
  '0006_inline_projections': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE inline_projections (name text PRIMARY KEY,
        caught_up_at timestamptz NOT NULL DEFAULT now())`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE inline_projections`.execute(db);
    },
  },
};

/** The hook the event store calls inside each append that carries an event an inline read model handles. */
export const inlineProjection = (
  projectors: Projector[],
  deps: { bus: Bus; db: Db; logger: Logger; kind: SqlPool['kind'] },
): InlineProjection => {
  const types = new Set(projectors.flatMap((p) => Object.keys(p.handlers)));
  const publish = async (messages: Promise<BusMessage[]>[]) => {
    for (const m of (await Promise.all(messages)).flat()) await deps.bus.publish(m.subject, m.data);
  };
  const afterCommit = (events: RecordedEvent[], emitted: BusMessage[][]) => {
    publish(projectors.map((p, i) => messagesOf(p, events, emitted[i], deps.db))).catch((err) =>
      deps.logger.warn({ err }, 'publishing after an inline projection failed'),
    );
  };
  return {
    handles: (type) => types.has(type),
    async apply(client, events) {
      const trx = createDb(onOneConnection(client, deps.kind)) as unknown as Trx;
      const emitted = projectors.map(() => [] as BusMessage[]);
      for (const [i, p] of projectors.entries()) await applyEvents(trx, p, events, (m) => emitted[i].push(m));
      return () => afterCommit(events, emitted);
    },
  };
};

/** Each append in flight holds a shared lock keyed by its transaction id until it ends: wait for them all. */
const waitForAppendsInFlight = async (client: SqlClient): Promise<void> => {
  const { rows } = await client.query<{ key: number }>(
    `SELECT objid::text::bigint::bit(32)::int AS key FROM pg_locks
      WHERE locktype = 'advisory' AND classid = $1 AND objsubid = 2 AND granted AND pid <> pg_backend_pid()
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [APPENDING_LOCK_CLASS],
  );
  for (const { key } of rows) {
    await client.query('SELECT pg_advisory_lock($1::int, $2::int)', [APPENDING_LOCK_CLASS, key]);
    await client.query('SELECT pg_advisory_unlock($1::int, $2::int)', [APPENDING_LOCK_CLASS, key]);
  }
};

/**
 * Before a process appends: every inline read model not yet listed as complete replays the log from its
 * checkpoint (0 for a new one) under the append lock, so no append lands in between, then is listed and
 * its checkpoint goes. Appends already in flight are waited for first: they commit before the replay reads.
 */
export const catchUpInlineProjections = async (
  deps: { db: Db; pool: SqlPool; logger: Logger },
  projectors: Projector[],
): Promise<void> => {
  if (projectors.length === 0) return;
  const listed = new Set((await deps.db.selectFrom('inline_projections').select('name').execute()).map((r) => r.name));
  if (projectors.every((p) => listed.has(p.name))) return;
  const client = await deps.pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [APPEND_LOCK_KEY]);
    try {
      await waitForAppendsInFlight(client);
      const db = createDb(onOneConnection(client, deps.pool.kind));
      const done = new Set((await db.selectFrom('inline_projections').select('name').execute()).map((r) => r.name));
      for (const p of projectors.filter((x) => !done.has(x.name))) {
        const checkpoint = await db
          .selectFrom('projection_checkpoints')
          .select('position')
          .where('name', '=', p.name)
          .executeTakeFirst();
        const from = Number(checkpoint?.position ?? 0);
        let position = from;
        let events: RecordedEvent[];
        await client.query('BEGIN');
        try {
          const trx = db as unknown as Trx;
          do {
            events = await committedAfter(trx, position, 1000);
            await applyEvents(trx, p, events);
            position = events.at(-1)?.globalPosition ?? position;
          } while (events.length === 1000);
          await db.deleteFrom('projection_checkpoints').where('name', '=', p.name).execute();
          await db.insertInto('inline_projections').values({ name: p.name }).execute();
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
        if (position > from)
          deps.logger.info({ projector: p.name, from, to: position }, 'inline read model caught up with the log');
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [APPEND_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
};

/**
 * Every committed event after `from`, whatever is still in flight: for callers that hold the append lock
 * or the inline tables' locks, so that what is in flight applies itself when it commits.
 */
export const committedAfter = async (db: Db | Trx, from: number, limit: number): Promise<RecordedEvent[]> => {
  const { rows } = await sql<EventRow>`SELECT ${sql.raw(columns)} FROM public.events
    WHERE global_position > ${from} ORDER BY global_position LIMIT ${limit}`.execute(db);
  return rows.map(toRecorded);
};
