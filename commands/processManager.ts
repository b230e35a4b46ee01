import { sql, type Generated, type Kysely, type Migration } from 'kysely';
import { DomainError } from '../domain/errors.js';
import type { AppContext } from '../infra/context.js';
import type { Db } from '../infra/db/database.js';
import type { RecordedEvent } from '../infra/eventStore/port.js';
import type { ScheduledJob } from '../infra/scheduler.js';

/**
 * A process manager: what other aggregates must do after an event. It reacts twice to the same events:
 * inline, in the command handler that appended them (so the response reflects the reaction), and from a
 * catch-up job that follows the log from its checkpoint (so a crash between two appends, a timer or
 * another area's command is not missed). Reactions derive their event ids from the causing event and
 * decide on the streams as they are now, so the second run appends nothing.
 *
 * A refusal (DomainError) is final, since deciding again decides the same: it is logged and the process
 * moves on. Any other error stops the catch-up at that event, and the next run retries it.
 */

/** The event a reaction follows: recorded in the log, or just appended by a command handler. */
export type Cause = Pick<RecordedEvent, 'eventId' | 'type' | 'data' | 'streamId'>;

/** What the mechanism itself needs; reactions may ask for more. */
export type ProcessContext = Pick<AppContext, 'db' | 'store' | 'logger' | 'settle'>;

export interface ProcessManagerDefinition<C extends ProcessContext> {
  /** Names its checkpoint and its job. */
  name: string;
  reactsTo(event: Cause): boolean;
  /** Returns the global position of the last event it appended (0 when none). */
  react(ctx: C, event: Cause): Promise<number>;
}

export interface CatchUpOptions {
  everyMs: number;
  /**
   * Read only up to the head the previous run saw, so as not to race the inline half of a command still
   * in flight (a process whose commands are not all inline-reacted would otherwise decide twice at once).
   */
  trailHead?: boolean;
}

export interface ProcessManager<C extends ProcessContext> {
  name: string;
  /** The inline half, for events a command handler just appended; returns the last position appended. */
  inline(ctx: C, events: Cause[]): Promise<number>;
  /** The catch-up half, as a scheduler job; its runs never overlap. */
  catchUpJob(ctx: C, options: CatchUpOptions): ScheduledJob;
}

declare module '../infra/db/database.js' {
  interface Database {
    process_manager_checkpoints: { name: string; position: number; updated_at: Generated<Date> };
  }
}

export const processManagerMigrations: Record<string, Migration> = {
  '0004_process_manager_checkpoints': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE process_manager_checkpoints (
        name text PRIMARY KEY,
        position bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE process_manager_checkpoints`.execute(db);
    },
  },
};

const BATCH = 500;

const loadCheckpoint = async (db: Db, name: string): Promise<number> => {
  const row = await db.selectFrom('process_manager_checkpoints').select('position').where('name', '=', name).executeTakeFirst();
  return row ? Number(row.position) : 0;
};

const saveCheckpoint = (db: Db, name: string, position: number) =>
  db
    .insertInto('process_manager_checkpoints')
    .values({ name, position })
    .onConflict((oc) => oc.column('name').doUpdateSet({ position, updated_at: sql`now()` }))
    .execute();

export const processManager = <C extends ProcessContext>({ name, reactsTo, react }: ProcessManagerDefinition<C>): ProcessManager<C> => {
  /** The event already happened, so a refusal is logged, never answered to anyone. */
  const reactLoggingRefusal = async (ctx: C, e: Cause, log: Record<string, unknown>): Promise<number> => {
    try {
      return await react(ctx, e);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      ctx.logger.error({ err, process: name, type: e.type, ...log }, 'process manager reaction refused; skipped');
      return 0;
    }
  };

  return {
    name,
    async inline(ctx, events) {
      let last = 0;
      for (const e of events) if (reactsTo(e)) last = Math.max(last, await reactLoggingRefusal(ctx, e, {}));
      return last;
    },
    catchUpJob(ctx, { everyMs, trailHead = false }) {
      let running: Promise<void> | null = null;
      let seenHead: number | null = null;
      const runOnce = async () => {
        let upTo = Number.POSITIVE_INFINITY;
        if (trailHead) {
          const previous = seenHead;
          seenHead = await ctx.store.headPosition();
          if (previous === null) return;
          upTo = previous;
        }
        let position = await loadCheckpoint(ctx.db, name);
        let last = 0;
        while (position < upTo) {
          const events = (await ctx.store.readAll(position, BATCH)).filter((e) => e.globalPosition <= upTo);
          if (events.length === 0) break;
          try {
            for (const e of events) {
              if (reactsTo(e)) last = Math.max(last, await reactLoggingRefusal(ctx, e, { event: e.globalPosition }));
              position = e.globalPosition;
            }
          } finally {
            // Up to the last event fully handled: an error stops before its event, which the next run retries.
            await saveCheckpoint(ctx.db, name, position);
          }
        }
        await ctx.settle(last);
      };
      return {
        name,
        everyMs,
        run: async () => {
          running ??= runOnce().finally(() => {
            running = null;
          });
          await running;
        },
      };
    },
  };
};
