import { sql } from 'kysely';
import type { Decider, DomainEvent } from '../domain/decider.js';
import { DomainError } from '../domain/errors.js';
import '../stores/processManager/checkpoints.js';
import type { Clock } from '../infra/clock.js';
import type { Db } from '../infra/db/database.js';
import type { EventStore, RecordedEvent } from '../infra/eventStore/port.js';
import type { Logger } from '../infra/logger.js';
import type { ScheduledJob, Scheduler } from '../infra/scheduler.js';
import {
  categoryOf,
  loadState,
  StreamBusy,
  type Aggregate,
  type CommandFor,
  type Handle,
  type Handled,
  type HandleOptions,
  type InlineReaction,
  type Loaded,
} from './handle.js';
import { causedBy, derivedEventIds } from './origin.js';

/**
 * A process manager: what other aggregates must do after an event. It reacts twice to the same events:
 * inline, within the command that decides them, its commands joining that command's one append (so the
 * response reflects the reaction, and both are stored or neither; registered by the stream categories it
 * follows, see `startProcess`), and from a
 * catch-up job that follows the log from its checkpoint (so a crash between two appends, a timer or
 * another area's command is not missed). Reactions derive their event ids from the causing event and
 * decide on the streams as they are now, so the second run appends nothing. The catch-up skips the events
 * whose inline reaction this process saw succeed (by event id, in memory): it follows the log for what the
 * inline half missed, not to redo what it did (another instance's, a crash's or a refusal's events are reacted
 * to again, as before).
 *
 * A refusal (DomainError) is final, since deciding again decides the same: it is logged and the process
 * moves on. Any other error stops the catch-up at that event, and the next run retries it.
 */

/** The event a reaction follows: recorded in the log, or just appended by a command handler. */
export type Cause = Pick<RecordedEvent, 'eventId' | 'type' | 'data' | 'streamId'>;

/** What the mechanism needs (checkpoints, the log, the one handler for the commands); reactions may ask for more. */
export interface ReactionContext {
  db: Db;
  store: EventStore;
  logger: Logger;
  handle: Handle;
  clock: Clock;
  /** Read-your-writes: waits (bounded) until the read models have applied `position`. */
  settle(position: number): Promise<void>;
}

/**
 * A command for one stream, as a reaction decides it. The runner sends it through the one handler with
 * event ids derived from the cause and `purpose`, so `purpose` is unique among one cause's commands.
 */
export interface Send {
  // The runner pairs each command with its own decider; reactions build them with `send`, which checks the
  // pair. A list of sends holds deciders of every command and state type, so here they can only be any.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  decider: Decider<any, any, DomainEvent>;
  streamId: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  command: CommandFor<any, any>;
  purpose: string;
  /**
   * Ids that follow from something other than the cause (a wallet entry keeps its entry id; a receipt's
   * effect is one per receipt whichever of its events caused it); by default they derive from the cause.
   */
  eventIds?: HandleOptions<unknown>['eventIds'];
  attempts?: HandleOptions<unknown>['attempts'];
}

export const send = <C, S, E extends DomainEvent>(
  decider: Decider<C, S, E>,
  streamId: string,
  command: NoInfer<CommandFor<C, S>>,
  purpose: string,
  options: Pick<Send, 'eventIds' | 'attempts'> = {},
): Send => ({
  decider: decider as unknown as Send['decider'],
  streamId,
  command,
  purpose,
  ...options,
});

/**
 * The streams a reaction reads. Inline, it starts with the streams the command just decided, so the
 * reaction decides on that state instead of reading the stream it wrote; what it reads or appends is
 * remembered for the next reaction of the same run, and handed to the handler as already loaded.
 */
export class Streams {
  private readonly known = new Map<string, Loaded<unknown>>();

  constructor(
    private readonly ctx: Pick<ReactionContext, 'store'>,
    known: Iterable<[string, Loaded<unknown>]> = [],
  ) {
    for (const [streamId, loaded] of known) this.known.set(streamId, loaded);
  }

  async read<S, E extends DomainEvent>(streamId: string, aggregate: Aggregate<S, E>): Promise<S> {
    return (await this.loaded(streamId, aggregate)).state;
  }

  async loaded<S, E extends DomainEvent>(streamId: string, aggregate: Aggregate<S, E>): Promise<Loaded<S>> {
    const known = this.known.get(streamId) as Loaded<S> | undefined;
    if (known) return known;
    const { state, version } = await loadState(this.ctx.store, streamId, aggregate);
    this.known.set(streamId, { state, version });
    return { state, version };
  }

  /** As the stream is after a command: what the handler returned. */
  remember(streamId: string, handled: Pick<Handled<unknown, DomainEvent>, 'state' | 'version'>): void {
    this.known.set(streamId, { state: handled.state, version: handled.version });
  }

  peek(streamId: string): Loaded<unknown> | undefined {
    return this.known.get(streamId);
  }
}

/** A process of pure reactions: the runner reads the state, sends the commands and follows up inline. */
export interface ReactionDefinition<St> {
  /** Names its checkpoint and its job. */
  name: string;
  /** The stream categories whose events it follows (`order` for `order-7`); every category when absent. */
  categories?: readonly string[];
  /** Which of those events it reacts to. */
  reactsTo(event: Cause): boolean;
  /** I/O: reads what the decision needs (through `streams`, so inline it comes from memory). */
  stateOf(streams: Streams, event: Cause): Promise<St>;
  /** Pure: the commands the event calls for, given the state now. */
  decide(event: Cause, state: St, now: Date): Send[];
}

/**
 * How deep a reaction follows its own commands' events (a repriced order reconciles its credit once more;
 * a grant pays out). The catch-up follows them too instead of waiting to meet them in the log: on
 * PostgreSQL the log hides an event while an older transaction is open, so the run that appended it
 * might end before it shows, and the follow-up would wait for the next run.
 */
const MAX_FOLLOW_UP_DEPTH = 3;

const follows = (def: ReactionDefinition<unknown>, e: Cause): boolean =>
  (def.categories === undefined || def.categories.includes(categoryOf(e.streamId))) && def.reactsTo(e);

/** Runs a pure reaction: read, decide, send each command, then react to what those commands appended. */
const reactPurely =
  <St>(def: ReactionDefinition<St>) =>
  async (ctx: ReactionContext, e: Cause, streams: Streams, depth = 0): Promise<number> => {
    const state = await def.stateOf(streams, e);
    let last = 0;
    for (const s of def.decide(e, state, ctx.clock.now())) {
      const handled = await ctx.handle(s.decider, s.streamId, s.command, {
        metadata: causedBy(e),
        eventIds: s.eventIds ?? derivedEventIds(e, s.purpose),
        attempts: s.attempts,
        loaded: streams.peek(s.streamId),
        // Its own follow-ups are below; other processes meet these events in their catch-up.
        react: false,
      });
      streams.remember(s.streamId, handled);
      last = Math.max(last, handled.position);
      if (depth >= MAX_FOLLOW_UP_DEPTH) continue;
      for (const appended of handled.events) {
        const next: Cause = { ...appended, streamId: s.streamId };
        if (follows(def, next)) last = Math.max(last, await reactPurely(def)(ctx, next, streams, depth + 1));
      }
    }
    return last;
  };

export interface CatchUpOptions {
  everyMs: number;
  /**
   * Read only up to the head the previous run saw, so as not to race the inline half of a command still
   * in flight (a process whose commands are not all inline-reacted would otherwise decide twice at once).
   */
  trailHead?: boolean;
}

export interface ProcessManager<C extends ReactionContext> {
  name: string;
  /**
   * The inline half, for events a command handler just appended; returns the last position appended.
   * `known` holds the streams the command just decided (pure reactions decide on them without reading).
   */
  inline(ctx: C, events: Cause[], known?: Iterable<[string, Loaded<unknown>]>): Promise<number>;
  /** One event as the catch-up reacts to it: every stream read as it is now; a busy stream throws. */
  react(ctx: C, event: Cause): Promise<number>;
  /** The catch-up half, as a scheduler job; its runs never overlap. */
  catchUpJob(ctx: C, options: CatchUpOptions): ScheduledJob;
  /**
   * The inline half as the one handler runs it after an append to a stream of `categories` (by default all
   * those the process follows).
   */
  inlineReaction(ctx: C, categories?: readonly string[]): InlineReaction;
}

const BATCH = 500;
/** Events reacted to inline and not yet passed by this process's catch-up, remembered at most (oldest first out). */
const HANDLED_INLINE_MAX = 20_000;

const loadCheckpoint = async (db: Db, name: string): Promise<number> => {
  const row = await db
    .selectFrom('process_manager_checkpoints')
    .select('position')
    .where('name', '=', name)
    .executeTakeFirst();
  return row ? Number(row.position) : 0;
};

const saveCheckpoint = (db: Db, name: string, position: number) =>
  db
    .insertInto('process_manager_checkpoints')
    .values({ name, position })
    .onConflict((oc) => oc.column('name').doUpdateSet({ position, updated_at: sql`now()` }))
    .execute();

export function processManager<C extends ReactionContext, St>(definition: ReactionDefinition<St>): ProcessManager<C> {
  const { name } = definition;
  const reactsTo = (e: Cause) => follows(definition as ReactionDefinition<unknown>, e);
  // Ids of events whose inline reaction succeeded here: their appends are committed, the catch-up skips them.
  const handledInline = new Set<string>();
  const react = (ctx: C, e: Cause, streams: Streams | null): Promise<number> =>
    reactPurely(definition)(ctx, e, streams ?? new Streams(ctx));
  /**
   * The event already happened, so a refusal is logged, never answered to anyone. A stream that stayed
   * busy is no refusal: in the catch-up it stops the run at this event, which the next run retries (inline,
   * the reaction's commands join the command's own append, which conflicts and runs again as a whole).
   */
  const reactLoggingRefusal = async (
    ctx: C,
    e: Cause,
    log: Record<string, unknown>,
    streams: Streams | null = null,
  ): Promise<number> => {
    try {
      const position = await react(ctx, e, streams);
      if (streams !== null) {
        if (handledInline.size >= HANDLED_INLINE_MAX) handledInline.delete(handledInline.values().next().value!);
        handledInline.add(e.eventId);
      }
      return position;
    } catch (err) {
      if (!(err instanceof DomainError) || err instanceof StreamBusy) throw err;
      ctx.logger.error({ err, process: name, type: e.type, ...log }, 'process manager reaction refused; skipped');
      return 0;
    }
  };

  const inline = async (ctx: C, events: Cause[], known: Iterable<[string, Loaded<unknown>]> = []) => {
    const streams = new Streams(ctx, known);
    let last = 0;
    for (const e of events) if (reactsTo(e)) last = Math.max(last, await reactLoggingRefusal(ctx, e, {}, streams));
    return last;
  };

  return {
    name,
    inline,
    react: (ctx, e) => (reactsTo(e) ? reactLoggingRefusal(ctx, e, {}) : Promise.resolve(0)),
    inlineReaction(ctx, categories = definition.categories) {
      if (!categories) throw new Error(`process manager ${name} names no stream categories to follow inline`);
      return {
        name,
        categories,
        react: async (events, known) => void (await inline(ctx, events, known)),
      };
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
        let more = true;
        while (more && position < upTo) {
          const read = await ctx.store.readAll(position, BATCH);
          // A short read reached the head: what comes after it is the next run's (no read to find nothing).
          more = read.length === BATCH;
          const events = read.filter((e) => e.globalPosition <= upTo);
          if (events.length === 0) break;
          const from = position;
          try {
            for (const e of events) {
              if (reactsTo(e) && !handledInline.delete(e.eventId))
                last = Math.max(last, await reactLoggingRefusal(ctx, e, { event: e.globalPosition }));
              position = e.globalPosition;
            }
          } finally {
            // Up to the last event fully handled: an error stops before its event, which the next run retries.
            if (position > from) await saveCheckpoint(ctx.db, name, position);
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
}

/**
 * Starts a process manager: its catch-up job on the scheduler and, with `inline`, its inline half on the
 * one handler, so every command appending to a stream it follows reacts before answering. `inline` is
 * `true` for every category the process follows, or the few it follows inline (the rest only in its
 * catch-up).
 */
export const startProcess = <C extends ReactionContext>(
  ctx: C & { scheduler: Pick<Scheduler, 'register'> },
  pm: ProcessManager<C>,
  options: CatchUpOptions & { inline: boolean | readonly string[] },
): void => {
  ctx.scheduler.register(pm.catchUpJob(ctx, options));
  if (options.inline === true) ctx.handle.register(pm.inlineReaction(ctx));
  else if (options.inline) ctx.handle.register(pm.inlineReaction(ctx, options.inline));
};
