import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { DomainError } from '../domain/errors.js';
import type { Decider, DomainEvent } from '../domain/decider.js';
import {
  ConcurrencyError,
  type AlongsideWrite,
  type EventMetadata,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
} from '../infra/eventStore/port.js';
import type { Logger } from '../infra/logger.js';
import { StateCache } from './stateCache.js';

/**
 * The one command path (docs/decisions/0101-one-transaction-per-command.md): read the stream once, fold it,
 * decide, then let what the decision implies join it — the reservations it takes (an order's customer and
 * driver slots) and the inline reactions registered for the stream's category, whose own commands decide on
 * the same snapshot. Everything a command decided on every stream is appended by one `appendToStreams`, so in
 * one transaction, with each stream's expected revision: all of it is stored or none. A conflict on any of
 * those streams runs the whole command again (bounded), from fresh reads of the streams it touched.
 *
 * A stream this handler appended to (or read) is kept in its state cache (commands/stateCache.ts): the next
 * command on it decides on the cached state without reading. That state is a guess the append checks: it
 * carries the cached revision, so a stale entry fails the append, is forgotten, and the command runs again
 * from a read. A guess that leads to no append (a refusal, or nothing to do) is never the answer either: the
 * stream is read and decided again, so only an append, checked by its revision, ever follows from a cached state.
 */

export interface Aggregate<S, E extends DomainEvent> {
  initialState: S;
  evolve: (state: S, event: E) => S;
}

/** An event a decision returns; a process manager may fix its id to make redelivery a no-op. */
export type Decided<E extends DomainEvent> = E & { eventId?: string };

/** An appended event with the id it was stored under (what a reaction derives its own ids from). */
export type Identified<E extends DomainEvent> = E & { eventId: string };

/** A stream as read: its folded state and how many events it holds. */
export interface Loaded<S> {
  state: S;
  version: number;
  /** From the state cache, not read: decided on, it must lead to an append (checked by its revision). */
  cached?: boolean;
}

export interface Handled<S, E extends DomainEvent> {
  /**
   * Global position of the last event the command appended, with its reactions (0 for none). A decision
   * that joins a command already under way answers 0: its events are stored with that command's.
   */
  position: number;
  events: Identified<E>[];
  /** The state after the decided events: what an inline reaction decides on, without reading again. */
  state: S;
  version: number;
}

export interface HandleOptions<S> {
  metadata?: EventMetadata;
  /**
   * Ids of the appended events, by index (a process manager derives them from its cause) or by the event
   * itself (a wallet entry is stored under its own entry id).
   */
  eventIds?: (index: number, event: DomainEvent) => string;
  /**
   * The stream as the caller already read it (to check access or gather reference data): the first
   * attempt decides on it instead of reading it again; if it is stale, the append conflicts and the
   * command runs again from a read.
   */
  loaded?: Loaded<S>;
  /** Attempts before a stream that stays busy answers 409 Conflict (default 8); a hot stream may need more. */
  attempts?: number;
  /**
   * Other streams the caller read for the decision (the client's credit): the inline reactions decide on
   * them as read instead of reading them again.
   */
  read?: Iterable<[string, Loaded<unknown>]>;
  /** Taken in order once a decision has events, in the same append: a refused decision never holds one. */
  reservations?: Reservation[];
  /** Whether the registered inline reactions follow (default true); a reaction's own commands do not start others. */
  react?: boolean;
  /**
   * Rows written with the decision's events, in their append's transaction (a driver's checked position);
   * only when the decision has events: the caller writes them itself otherwise.
   */
  alongside?: AlongsideWrite[];
}

/**
 * Something a command holds beyond its own stream (a slot of one active order): its `take` decides on that
 * stream through the handler, so it joins the command's append, or throws the command's refusal.
 */
export interface Reservation {
  take(): Promise<void>;
}

/** An event as decided for its stream: what an inline reaction follows. */
export type Appended = Identified<DomainEvent> & { streamId: string };

/** The inline half of a process manager, registered by the stream categories whose events it follows. */
export interface InlineReaction {
  name: string;
  categories: readonly string[];
  /**
   * Reacts to the events one command just decided; `known` holds the streams the command decided on. Its
   * commands join the command's append. It never fails the command: when it throws, what it added is taken
   * back and left to its catch-up.
   */
  react(events: Appended[], known: [string, Loaded<unknown>][]): Promise<void>;
}

/**
 * The command for the state as read, or null to decide nothing. It may throw a DomainError first: access
 * checks run here, on the loaded state, so no extra read precedes the decision.
 */
export type CommandFor<C, S> = C | ((state: S) => C | null);

export interface Handle {
  <C, S, E extends DomainEvent>(
    decider: Decider<C, S, E>,
    streamId: string,
    command: NoInfer<CommandFor<C, S>>,
    options?: NoInfer<HandleOptions<S>>,
  ): Promise<Handled<S, E>>;
  /** Runs `reaction` after every decision on a stream of its categories, in the order registered. */
  register(reaction: InlineReaction): void;
  /**
   * A stream the caller checks and then hands to this handler as `loaded`: as the command under way decided
   * it, else from the state cache, else read. `check` (access, existence) runs on it; a refusal on a cached
   * state is not trusted: the stream is read and checked again. Only for a stream the command then appends
   * to: the append's revision is what makes a cached state safe to decide on.
   */
  load<S, E extends DomainEvent>(
    aggregate: Aggregate<S, E>,
    streamId: string,
    check?: (state: S) => unknown,
  ): Promise<Loaded<S>>;
  /**
   * A stream's state as this process last appended or read it, unchecked (undefined when not cached). No
   * decision may rest on it but a fact that cannot be undone (an order that ended stays ended).
   */
  known<S, E extends DomainEvent>(aggregate: Aggregate<S, E>, streamId: string): S | undefined;
}

/** A stream's category: its id up to the first dash (`order-7` → `order`). */
export const categoryOf = (streamId: string): string => {
  const dash = streamId.indexOf('-');
  return dash < 0 ? streamId : streamId.slice(0, dash);
};

export const loadState = async <S, E extends DomainEvent>(
  store: EventStore,
  streamId: string,
  aggregate: Aggregate<S, E>,
) => {
  const recorded = await store.readStream(streamId);
  let state = aggregate.initialState;
  for (const r of recorded) state = aggregate.evolve(state, { type: r.type, data: r.data } as E);
  return { state, version: recorded.length, recorded: recorded as RecordedEvent[] };
};

const MAX_ATTEMPTS = 8;

/**
 * A stream stayed busy through every attempt: the API answers 409 Conflict, but it is no refusal; a
 * process manager tries the reaction again later instead of skipping it.
 */
export class StreamBusy extends DomainError {
  constructor(readonly streamId: string) {
    super('conflict', 'Conflict', 'The resource is busy; try again.');
  }
}

/** One stream's share of the command under way: the revision it was decided on and what was decided. */
interface Pending {
  fold: unknown;
  /** Events the stream held when the command read it. */
  base: number;
  events: NewEvent[];
  state: unknown;
}

/** What a command has decided so far, stream by stream, before anything is written. */
class Batch {
  streams = new Map<string, Pending>();
  alongside: AlongsideWrite[] = [];

  /** The stream as decided so far, for an aggregate of the same fold. */
  loaded(streamId: string, aggregate: { evolve: unknown }): Loaded<unknown> | undefined {
    const p = this.streams.get(streamId);
    return p && p.fold === aggregate.evolve ? { state: p.state, version: p.base + p.events.length } : undefined;
  }

  add(streamId: string, fold: unknown, version: number, events: NewEvent[], state: unknown): void {
    const p = this.streams.get(streamId);
    if (p) this.streams.set(streamId, { ...p, fold, events: [...p.events, ...events], state });
    else this.streams.set(streamId, { fold, base: version, events, state });
  }

  /** What to go back to when a reaction fails half-way. */
  mark(): { streams: Map<string, Pending>; alongside: number } {
    return { streams: new Map(this.streams), alongside: this.alongside.length };
  }

  restore(mark: { streams: Map<string, Pending>; alongside: number }): void {
    this.streams = mark.streams;
    this.alongside = this.alongside.slice(0, mark.alongside);
  }
}

const cachedOf = <S>(cache: StateCache, streamId: string, aggregate: { evolve: unknown }): Loaded<S> | undefined => {
  const hit = cache.get(streamId, aggregate);
  return hit && { state: hit.state as S, version: hit.version, cached: true };
};

export const createHandle = (
  store: EventStore,
  {
    maxAttempts = MAX_ATTEMPTS,
    cache = new StateCache(),
    logger,
  }: { maxAttempts?: number; cache?: StateCache; logger?: Pick<Logger, 'warn'> } = {},
): Handle => {
  const reactions: InlineReaction[] = [];
  const current = new AsyncLocalStorage<Batch>();

  /** The stream read from the store (never from the cache), as of the command under way. */
  const read = async <S>(
    batch: Batch | undefined,
    streamId: string,
    aggregate: Aggregate<S, DomainEvent>,
  ): Promise<Loaded<S>> => {
    const { state, version } = await loadState(store, streamId, aggregate);
    const pending = batch?.streams.get(streamId);
    if (!pending) {
      cache.set(streamId, aggregate, state, version);
      return { state, version };
    }
    // Decided on under another fold: this one folds the same events, as stored and as decided since.
    if (pending.base !== version) throw new ConcurrencyError(streamId, pending.base - 1, version - 1);
    const after = pending.events.reduce<S>((s, e) => aggregate.evolve(s, e as unknown as DomainEvent), state);
    return { state: after, version: version + pending.events.length };
  };

  /** Decides one command on its stream and adds what it decided to the batch, then what it implies. */
  const decideInto = async <S, E extends DomainEvent>(
    batch: Batch,
    decider: Decider<unknown, S, E>,
    streamId: string,
    command: CommandFor<unknown, S>,
    options: HandleOptions<S>,
  ): Promise<Handled<S, E>> => {
    const decide = (state: S) => {
      const c = typeof command === 'function' ? (command as (s: S) => unknown)(state) : command;
      return c === null ? [] : (decider.decide(c, state) as Decided<E>[]);
    };
    const aggregate = decider as unknown as Aggregate<S, DomainEvent>;
    let given =
      (batch.loaded(streamId, decider) as Loaded<S> | undefined) ??
      options.loaded ??
      cachedOf<S>(cache, streamId, decider) ??
      (await read<S>(batch, streamId, aggregate));
    let decided: Decided<E>[];
    for (;;) {
      try {
        decided = decide(given.state);
      } catch (err) {
        // A refusal on a guess is not an answer: read the stream and decide again.
        if (given.cached && err instanceof DomainError) {
          cache.forget(streamId);
          given = await read<S>(batch, streamId, aggregate);
          continue;
        }
        throw err;
      }
      if (decided.length === 0 && given.cached) {
        cache.forget(streamId);
        given = await read<S>(batch, streamId, aggregate);
        continue;
      }
      break;
    }
    const { state, version } = given;
    const events = decided.map(
      (e, i) => ({ ...e, eventId: e.eventId ?? options.eventIds?.(i, e) ?? randomUUID() }) as Identified<E>,
    );
    if (events.length === 0) return { position: 0, events, state, version };
    const after = events.reduce<S>(decider.evolve, state);
    const { metadata } = options;
    batch.add(
      streamId,
      decider.evolve,
      version,
      events.map((e) => ({ eventId: e.eventId, type: e.type, data: e.data, metadata })),
      after,
    );
    batch.alongside.push(...(options.alongside ?? []));
    for (const r of options.reservations ?? []) await r.take();
    if (options.react !== false) await reactTo(batch, streamId, events, after, version + events.length, options);
    return { position: 0, events, state: after, version: version + events.length };
  };

  /** The reactions of the stream's category, each taken back whole when it throws. */
  const reactTo = async (
    batch: Batch,
    streamId: string,
    events: Identified<DomainEvent>[],
    state: unknown,
    version: number,
    options: HandleOptions<unknown>,
  ) => {
    const category = categoryOf(streamId);
    const appended = events.map((e) => ({ ...e, streamId }));
    const known: [string, Loaded<unknown>][] = [[streamId, { state, version }], ...(options.read ?? [])];
    for (const r of reactions) {
      if (!r.categories.includes(category)) continue;
      const mark = batch.mark();
      try {
        await r.react(appended, known);
      } catch (err) {
        // A conflict found while reacting is the command's: it runs again as a whole.
        if (err instanceof ConcurrencyError) throw err;
        batch.restore(mark);
        logger?.warn(
          { err, reaction: r.name, types: events.map((e) => e.type) },
          'inline reaction left to its catch-up',
        );
      }
    }
  };

  /** A command of its own: decided into a new batch, appended in one go, run again on a conflict. */
  const command = async <S, E extends DomainEvent>(
    decider: Decider<unknown, S, E>,
    streamId: string,
    commandFor: CommandFor<unknown, S>,
    options: HandleOptions<S>,
  ): Promise<Handled<S, E>> => {
    const attempts = options.attempts ?? maxAttempts;
    for (let attempt = 1; ; attempt++) {
      const batch = new Batch();
      try {
        // A rerun decides on fresh reads: what the caller read (its stream, the streams its reactions decide on)
        // may be what went stale.
        const first = attempt === 1 ? options : { ...options, loaded: undefined, read: undefined };
        const handled = await current.run(batch, () => decideInto(batch, decider, streamId, commandFor, first));
        if (batch.streams.size === 0) return handled;
        const appends = [...batch.streams].map(([id, p]) => ({
          streamId: id,
          expectedRevision: p.base === 0 ? ('no_stream' as const) : p.base - 1,
          events: p.events,
        }));
        const { position } = await store.appendToStreams(appends, { alongside: batch.alongside });
        for (const [id, p] of batch.streams) cache.set(id, { evolve: p.fold }, p.state, p.base + p.events.length);
        return { ...handled, position };
      } catch (err) {
        // Whatever the append's outcome, the cached entries may no longer be the streams' heads.
        for (const id of batch.streams.keys()) cache.forget(id);
        if (err instanceof ConcurrencyError) {
          cache.forget(err.streamId);
          if (attempt < attempts) continue;
          throw new StreamBusy(err.streamId);
        }
        throw err;
      }
    }
  };

  const handle = (
    decider: Decider<unknown, unknown, DomainEvent>,
    streamId: string,
    commandFor: CommandFor<unknown, unknown>,
    options: HandleOptions<unknown> = {},
  ) => {
    const batch = current.getStore();
    return batch
      ? decideInto(batch, decider, streamId, commandFor, options)
      : command(decider, streamId, commandFor, options);
  };

  const load = async <S, E extends DomainEvent>(
    aggregate: Aggregate<S, E>,
    streamId: string,
    check: (state: S) => unknown = () => undefined,
  ): Promise<Loaded<S>> => {
    const batch = current.getStore();
    const pending = batch?.loaded(streamId, aggregate) as Loaded<S> | undefined;
    if (pending) {
      check(pending.state);
      return pending;
    }
    const hit = cachedOf<S>(cache, streamId, aggregate);
    if (hit) {
      try {
        check(hit.state);
        return hit;
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        cache.forget(streamId);
      }
    }
    const fresh = await read<S>(batch, streamId, aggregate as unknown as Aggregate<S, DomainEvent>);
    check(fresh.state);
    return fresh;
  };

  const known = <S, E extends DomainEvent>(aggregate: Aggregate<S, E>, streamId: string): S | undefined =>
    cache.get(streamId, aggregate)?.state as S | undefined;

  return Object.assign(handle, {
    register: (reaction: InlineReaction) => void reactions.push(reaction),
    load,
    known,
  }) as Handle;
};
