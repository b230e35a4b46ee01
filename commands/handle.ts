import { randomUUID } from 'node:crypto';
import { DomainError } from '../domain/errors.js';
import type { Decider, DomainEvent } from '../domain/decider.js';
import { ConcurrencyError, type EventMetadata, type EventStore, type RecordedEvent } from '../infra/eventStore/port.js';
import { StateCache } from './stateCache.js';

/**
 * The one command path: read the stream once, fold it, decide, take the reservations the decision needs
 * (an order's customer and driver slots), append with the expected revision, then run the inline reactions
 * registered for the stream's category on the events just appended and the state just decided. On a
 * concurrent append it reads again and decides again (bounded). Every aggregate's commands, every process
 * manager's commands and every slot go through it.
 *
 * A stream this handler appended to (or read) is kept in its state cache (commands/stateCache.ts): the next
 * command on it decides on the cached state without reading. That state is a guess the append checks: it
 * carries the cached revision, so a stale entry fails with a wrong expected revision, is forgotten, and the
 * retry reads the stream. A guess that leads to no append (a refusal, or nothing to do) is never the answer
 * either: the stream is read and the command decided again, so only an append, checked by its revision, ever
 * follows from a cached state.
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
  /** Global position of the last event appended, by the decision or its inline reactions (0 for none). */
  position: number;
  events: Identified<E>[];
  /** The state after the appended events: what an inline reaction decides on, without reading again. */
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
   * retry reads the stream.
   */
  loaded?: Loaded<S>;
  /** Attempts before a stream that stays busy answers 409 Conflict (default 8); a hot stream may need more. */
  attempts?: number;
  /**
   * Other streams the caller read for the decision (the client's credit): the inline reactions decide on
   * them as read instead of reading them again.
   */
  read?: Iterable<[string, Loaded<unknown>]>;
  /**
   * Taken in order once a decision has events and before they are appended, so a refused decision never
   * holds one; released in reverse order when the command then fails.
   */
  reservations?: Reservation[];
  /** Whether the registered inline reactions follow (default true); a reaction's own commands do not start others. */
  react?: boolean;
}

/** Something a command holds beyond its own stream while it appends (a slot of one active order). */
export interface Reservation {
  /** Throws the command's refusal when the reservation is held elsewhere. */
  take(): Promise<void>;
  /** Never throws: a release that fails is logged, and the command's own error is the answer. */
  release(): Promise<void>;
}

/** An event as appended to its stream: what an inline reaction follows. */
export type Appended = Identified<DomainEvent> & { streamId: string };

/** The inline half of a process manager, registered by the stream categories whose events it follows. */
export interface InlineReaction {
  name: string;
  categories: readonly string[];
  /**
   * Reacts to the events one command just appended; `known` holds the streams the command decided on.
   * Returns the last position appended. It never fails the command, which stands: what it cannot do is
   * left to its catch-up.
   */
  react(events: Appended[], known: [string, Loaded<unknown>][]): Promise<number>;
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
  /** Runs `reaction` after every append to a stream of its categories, in the order registered. */
  register(reaction: InlineReaction): void;
  /**
   * A stream the caller checks and then hands to this handler as `loaded`, from the state cache when it is
   * there. `check` (access, existence) runs on it; a refusal on a cached state is not trusted: the stream is
   * read and checked again. Only for the stream the command then appends to: the append's revision is what
   * makes a cached state safe to decide on.
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
 * The stream stayed busy through every attempt: the API answers 409 Conflict, but it is no refusal; a
 * process manager tries the reaction again later instead of skipping it.
 */
export class StreamBusy extends DomainError {
  constructor(readonly streamId: string) {
    super('conflict', 'Conflict', 'The resource is busy; try again.');
  }
}

const decideAndAppend = async <S, E extends DomainEvent>(
  store: EventStore,
  cache: StateCache,
  streamId: string,
  aggregate: Aggregate<S, E>,
  decide: (state: S, version: number) => Decided<E>[],
  { metadata, eventIds, loaded, reservations = [] }: HandleOptions<S>,
  maxAttempts: number,
): Promise<Handled<S, E>> => {
  let current: Loaded<S> | undefined = loaded;
  let useCache = true;
  let taken = 0;
  const read = async (): Promise<Loaded<S>> => {
    const { state, version } = await loadState(store, streamId, aggregate);
    cache.set(streamId, aggregate, state, version);
    return { state, version };
  };
  try {
    for (let attempt = 1; ; attempt++) {
      const given = current ?? (useCache ? cachedOf<S>(cache, streamId, aggregate) : undefined);
      current = undefined;
      const { state, version, cached = false } = given ?? (await read());
      // A guess that leads to no append is not an answer: read the stream and decide again (not an attempt).
      const again = () => {
        cache.forget(streamId);
        useCache = false;
        attempt--;
      };
      let decided: Decided<E>[];
      try {
        decided = decide(state, version);
      } catch (err) {
        if (cached && err instanceof DomainError) {
          again();
          continue;
        }
        throw err;
      }
      if (decided.length === 0 && cached) {
        again();
        continue;
      }
      const events = decided.map(
        (e, i) => ({ ...e, eventId: e.eventId ?? eventIds?.(i, e) ?? randomUUID() }) as Identified<E>,
      );
      if (events.length === 0) return { position: 0, events, state, version };
      for (; taken < reservations.length; taken++) await reservations[taken].take();
      try {
        const result = await store.appendToStream(
          streamId,
          events.map((e) => ({ eventId: e.eventId, type: e.type, data: e.data, metadata })),
          { expectedRevision: version === 0 ? 'no_stream' : version - 1 },
        );
        const after = events.reduce<S>(aggregate.evolve, state);
        cache.set(streamId, aggregate, after, version + events.length);
        return { position: result.position, events, state: after, version: version + events.length };
      } catch (err) {
        // Whatever the append's outcome, the entry may no longer be the stream's head.
        cache.forget(streamId);
        useCache = false;
        if (err instanceof ConcurrencyError && attempt < maxAttempts) continue;
        if (err instanceof ConcurrencyError) throw new StreamBusy(streamId);
        throw err;
      }
    }
  } catch (err) {
    // What the command held for an append that did not happen goes back; the command's error is the answer.
    for (const r of reservations.slice(0, taken).reverse()) await r.release();
    throw err;
  }
};

const cachedOf = <S>(cache: StateCache, streamId: string, aggregate: { evolve: unknown }): Loaded<S> | undefined => {
  const hit = cache.get(streamId, aggregate);
  return hit && { state: hit.state as S, version: hit.version, cached: true };
};

export const createHandle = (
  store: EventStore,
  { maxAttempts = MAX_ATTEMPTS, cache = new StateCache() }: { maxAttempts?: number; cache?: StateCache } = {},
): Handle => {
  const reactions: InlineReaction[] = [];
  const handle = async (
    decider: Decider<unknown, unknown, DomainEvent>,
    streamId: string,
    command: CommandFor<unknown, unknown>,
    options: HandleOptions<unknown> = {},
  ) => {
    const decide = (state: unknown) => {
      const c = typeof command === 'function' ? (command as (s: unknown) => unknown)(state) : command;
      return c === null ? [] : decider.decide(c, state);
    };
    const handled = await decideAndAppend(
      store,
      cache,
      streamId,
      decider,
      decide,
      options,
      options.attempts ?? maxAttempts,
    );
    if (handled.events.length === 0 || options.react === false) return handled;
    const category = categoryOf(streamId);
    const appended = handled.events.map((e) => ({ ...e, streamId }));
    const known: [string, Loaded<unknown>][] = [
      [streamId, { state: handled.state, version: handled.version }],
      ...(options.read ?? []),
    ];
    let position = handled.position;
    for (const r of reactions)
      if (r.categories.includes(category)) position = Math.max(position, await r.react(appended, known));
    return { ...handled, position };
  };
  const load = async <S, E extends DomainEvent>(
    aggregate: Aggregate<S, E>,
    streamId: string,
    check: (state: S) => unknown = () => undefined,
  ): Promise<Loaded<S>> => {
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
    const { state, version } = await loadState(store, streamId, aggregate);
    cache.set(streamId, aggregate, state, version);
    check(state);
    return { state, version };
  };
  const known = <S, E extends DomainEvent>(aggregate: Aggregate<S, E>, streamId: string): S | undefined =>
    cache.get(streamId, aggregate)?.state as S | undefined;
  return Object.assign(handle, {
    register: (reaction: InlineReaction) => void reactions.push(reaction),
    load,
    known,
  }) as Handle;
};
