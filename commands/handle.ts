import { randomUUID } from 'node:crypto';
import { conflict } from '../domain/errors.js';
import type { DomainEvent } from '../domain/decider.js';
import { ConcurrencyError, type EventMetadata, type EventStore, type RecordedEvent } from '../infra/eventStore/port.js';

export interface Aggregate<S, E extends DomainEvent> {
  initialState: S;
  evolve: (state: S, event: E) => S;
}

/** An event a decider returns; a process manager may fix its id to make redelivery a no-op. */
export type Decided<E extends DomainEvent> = E & { eventId?: string };

export interface Handled<S, E> {
  /** Global position of the last appended event (0 when the decision appended nothing). */
  position: number;
  events: E[];
  state: S;
}

export type Handle = <S, E extends DomainEvent>(
  streamId: string,
  aggregate: Aggregate<S, E>,
  decide: (state: S, version: number) => Decided<E>[],
  metadata?: EventMetadata,
) => Promise<Handled<S, E>>;

export const loadState = async <S, E extends DomainEvent>(store: EventStore, streamId: string, aggregate: Aggregate<S, E>) => {
  const recorded = await store.readStream(streamId);
  let state = aggregate.initialState;
  for (const r of recorded) state = aggregate.evolve(state, { type: r.type, data: r.data } as E);
  return { state, version: recorded.length, recorded: recorded as RecordedEvent[] };
};

/**
 * load → decide → append with the expected revision; on a concurrent append, reload and decide again.
 * The decider sees the state its events will follow, so two racing commands give one winner and one
 * clean domain error from the second decision.
 */
export const createHandle = (store: EventStore, maxAttempts = 8): Handle =>
  async (streamId, aggregate, decide, metadata) => {
    for (let attempt = 1; ; attempt++) {
      const { state, version } = await loadState(store, streamId, aggregate);
      const decided = decide(state, version);
      if (decided.length === 0) return { position: 0, events: [], state };
      try {
        const result = await store.appendToStream(
          streamId,
          decided.map(({ eventId, ...e }) => ({ eventId: eventId ?? randomUUID(), type: e.type, data: e.data, metadata })),
          { expectedRevision: version === 0 ? 'no_stream' : version - 1 },
        );
        const events = decided.map(({ eventId: _id, ...e }) => e as unknown as typeof decided[number]);
        return { position: result.position, events, state: events.reduce(aggregate.evolve, state) };
      } catch (err) {
        if (err instanceof ConcurrencyError && attempt < maxAttempts) continue;
        if (err instanceof ConcurrencyError) throw conflict('Conflict', 'The resource is busy; try again.');
        throw err;
      }
    }
  };
