import { sql } from 'kysely';
import type { Db, Trx } from '../infra/db/database.js';
import type { EventStore } from '../infra/eventStore/port.js';
import type { Projector } from './projector.js';
import { committedAfter } from './inline.js';
import { applyEvents } from './runner.js';

export interface RebuildDeps {
  db: Db;
  store: EventStore;
  /**
   * The projector is applied inline, in each append's transaction: it has no checkpoint, and the swap
   * itself replays what was committed since the last read (projections/inline.ts).
   */
  inline?: boolean;
  batchSize?: number;
  /** Called after every replayed batch: `position` of `head` (head grows while events keep arriving). */
  onProgress?: (position: number, head: number) => void;
}

export interface RebuildResult {
  name: string;
  /** Global position the swapped-in tables and the checkpoint stand at. */
  position: number;
  /** Events read from the log (handled or not). */
  events: number;
  /** Swap attempts: more than one when the live runner got ahead of the rebuild in between. */
  attempts: number;
  ms: number;
}

/** The live checkpoint moved past the rebuilt tables while we caught up: replay further, then swap again. */
class Behind extends Error {
  constructor(readonly live: number) {
    super(`live checkpoint at ${live}`);
  }
}

const MAX_SWAP_ATTEMPTS = 50;
/** Deadlock with a live runner's batch, or the table lock not granted within lock_timeout. */
const RETRYABLE = new Set(['40P01', '55P03']);

export const rebuildSchemaName = (name: string): string =>
  `rebuild_${name.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`.slice(0, 63);

/**
 * Replays the whole log into fresh copies of the projector's tables in a schema of their own, then swaps
 * them in. The replay writes no checkpoint, so the live runner (here or in another process) keeps
 * serving and advancing the current tables meanwhile. The swap happens in one transaction that first
 * locks the checkpoint row and the live tables (a live batch in flight finishes first; later ones wait),
 * so the rebuilt tables replace the live ones at a position no lower than the live checkpoint. When the
 * live runner got further than the rebuild, the swap rolls back and the rebuild replays on and tries
 * again (the events are read outside the swap, which holds its locks only for the swap itself). When the
 * rebuild ended up further along, the checkpoint moves with it and the live runner resumes from there
 * (runner.ts, CheckpointMoved).
 *
 * An inline read model has no checkpoint: appends write its live tables in their own transactions. The
 * swap locks those tables (appends that wrote them commit first; later ones wait), replays every event
 * committed since the last read into the rebuilt tables, and swaps: an append still in flight has not
 * written the tables yet, and writes the rebuilt ones once the swap commits.
 */
export const rebuildProjection = async (deps: RebuildDeps, p: Projector): Promise<RebuildResult> => {
  const { db, store } = deps;
  const batchSize = deps.batchSize ?? 2000;
  const started = Date.now();
  const schema = rebuildSchemaName(p.name);
  const inRebuildSchema = (trx: Trx) => sql`SET LOCAL search_path TO ${sql.id(schema)}, public`.execute(trx);

  // A rebuild that died half-way leaves its schema behind; it holds nothing worth keeping.
  await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(db);
  await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(db);
  // A row to lock in the swap, even for a projector that never ran.
  if (!deps.inline)
    await db
      .insertInto('projection_checkpoints')
      .values({ name: p.name, position: 0 })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
  let position = 0;
  let events = 0;
  try {
    for (const t of p.tables) {
      await sql`CREATE TABLE ${sql.id(schema, t)} (LIKE ${sql.id('public', t)} INCLUDING ALL)`.execute(db);
    }
    let head = await store.headPosition();
    /** Replays until a read comes back short: everything visible now is in the rebuilt tables. */
    const replay = async () => {
      for (;;) {
        const batch = await store.readAll(position, batchSize);
        if (batch.length > 0) {
          await db.transaction().execute(async (trx) => {
            await inRebuildSchema(trx);
            await applyEvents(trx, p, batch);
          });
          position = batch[batch.length - 1].globalPosition;
          events += batch.length;
          head = Math.max(head, position);
          deps.onProgress?.(position, head);
        }
        if (batch.length < batchSize) return;
      }
    };
    for (let attempt = 1; ; attempt++) {
      await replay();
      try {
        await db.transaction().execute(async (trx) => {
          await sql`SET LOCAL lock_timeout = '10s'`.execute(trx);
          if (deps.inline) {
            if (p.tables.length > 0)
              await sql`LOCK TABLE ${sql.join(p.tables.map((t) => sql.id('public', t)))}
                IN ACCESS EXCLUSIVE MODE`.execute(trx);
            await inRebuildSchema(trx);
            for (let more = true; more;) {
              const batch = await committedAfter(trx, position, batchSize);
              await applyEvents(trx, p, batch);
              position = batch.at(-1)?.globalPosition ?? position;
              events += batch.length;
              more = batch.length === batchSize;
            }
          } else {
            // The checkpoint row first, as a runner's batch does (runner.ts, applyBatch): a batch in flight
            // commits before we go on, and the next one waits for the swap.
            const live = await trx
              .selectFrom('projection_checkpoints')
              .select('position')
              .where('name', '=', p.name)
              .forUpdate()
              .executeTakeFirstOrThrow();
            if (p.tables.length > 0) {
              await sql`LOCK TABLE ${sql.join(p.tables.map((t) => sql.id('public', t)))}
                IN ACCESS EXCLUSIVE MODE`.execute(trx);
            }
            const livePosition = Number(live.position);
            if (livePosition > position) throw new Behind(livePosition);
          }
          for (const t of p.tables) await sql`DROP TABLE ${sql.id('public', t)}`.execute(trx);
          for (const t of p.tables) await sql`ALTER TABLE ${sql.id(schema, t)} SET SCHEMA public`.execute(trx);
          await sql`DROP SCHEMA ${sql.id(schema)}`.execute(trx);
          if (!deps.inline) {
            await trx
              .insertInto('projection_checkpoints')
              .values({ name: p.name, position })
              .onConflict((oc) => oc.column('name').doUpdateSet({ position, updated_at: sql`now()` }))
              .execute();
          }
        });
        return { name: p.name, position, events, attempts: attempt, ms: Date.now() - started };
      } catch (err) {
        const code = (err as { code?: string }).code;
        const retry = err instanceof Behind || (code !== undefined && RETRYABLE.has(code));
        if (!retry || attempt >= MAX_SWAP_ATTEMPTS) throw err;
      }
    }
  } catch (err) {
    await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(db).catch(() => undefined);
    throw err;
  }
};
