import type { SqlClient } from '../db/sqlPool.js';

/** The event store port (docs/architecture.md, event store); every adapter passes tests/contract/eventStore. */
export interface EventMetadata {
  correlationId?: string;
  causationId?: string;
  actor?: { id: number | string | null; role: string };
  /** The version of the event's data shape it was stored at (infra/eventStore/versioning.ts); absent means 1. */
  schemaVersion?: number;
  [key: string]: unknown;
}

export interface NewEvent<T extends string = string, D = unknown> {
  eventId: string;
  type: T;
  data: D;
  metadata?: EventMetadata;
}

export interface RecordedEvent<T extends string = string, D = unknown> {
  eventId: string;
  type: T;
  data: D;
  metadata: EventMetadata;
  streamId: string;
  streamPosition: number;
  globalPosition: number;
  recordedAt: Date;
}

/** 'no_stream': the stream must not exist; a number: the stream's last event must be at that revision. */
export type ExpectedRevision = 'no_stream' | 'any' | number;

export interface AppendResult {
  /** Revision of the stream's last event after the append. */
  nextExpectedRevision: number;
  /** Global position of the last appended (or already stored) event. */
  position: number;
}

export class ConcurrencyError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | null,
  ) {
    super(`Stream ${streamId}: expected revision ${String(expected)}, found ${actual ?? 'no stream'}`);
    this.name = 'ConcurrencyError';
  }
}

export interface ReadStreamOptions {
  /** The first stream position to read (inclusive). */
  from?: number;
}

export interface Subscription extends AsyncIterable<RecordedEvent> {
  close(): Promise<void>;
}

/** One stream's share of an append: its events, and the revision the stream must be at. */
export interface StreamAppend {
  streamId: string;
  expectedRevision: ExpectedRevision;
  events: NewEvent[];
}

/**
 * Rows a command keeps beside the log (state-stored, too frequent for a stream: a driver's last position and its
 * rate), written with the command's events. It may throw a refusal, which takes the append back with it.
 */
export type AlongsideWrite = (client: SqlClient) => Promise<void>;

export interface AppendOptions {
  /** Run in the append's transaction, after its events, where the store has one (PostgreSQL). */
  alongside?: AlongsideWrite[];
}

export interface StreamsAppended {
  /** Global position of the last event appended (or already stored) by the whole append. */
  position: number;
  /** Each stream's result, in the order the append named them. */
  streams: (AppendResult & { streamId: string })[];
}

export interface EventStore {
  readonly name: string;
  /**
   * Appends to several streams at once, atomically: every stream's expected revision is checked and either
   * every event is stored or none is (a ConcurrencyError names the first stream found stale). A stream whose
   * events are all stored already (a redelivery, matched by event id) is answered as stored and appends nothing.
   * Each stream appears once, with at least one event.
   */
  appendToStreams(appends: StreamAppend[], options?: AppendOptions): Promise<StreamsAppended>;
  /**
   * Events of one stream in order, from stream position `from` (inclusive, default 0): a long-lived aggregate
   * loads from its last snapshot or period close. Empty when the stream does not exist or holds nothing there.
   */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Up to `limit` events with globalPosition > fromPosition, in ascending global order, with no gaps left behind. */
  readAll(fromPosition: number, limit: number): Promise<RecordedEvent[]>;
  /** Catch-up from fromPosition (exclusive), then live, each event exactly once and in order. */
  subscribeToAll(fromPosition: number): Subscription;
  /** Resolves when this process appends an event, or after timeoutMs: readers poll with it. */
  waitForAppend(timeoutMs: number): Promise<void>;
  /** Global position of the last event, 0 when empty. */
  headPosition(): Promise<number>;
  close(): Promise<void>;
}

/** The single-stream append: the one-element case of `appendToStreams`. */
export const appendToStream = async (
  store: Pick<EventStore, 'appendToStreams'>,
  streamId: string,
  events: NewEvent[],
  { expectedRevision }: { expectedRevision: ExpectedRevision },
): Promise<AppendResult> => {
  const { streams } = await store.appendToStreams([{ streamId, expectedRevision, events }]);
  const { nextExpectedRevision, position } = streams[0];
  return { nextExpectedRevision, position };
};

/** Refuses a malformed append before any adapter sees it: no stream twice, none without events. */
export const checkAppends = (appends: StreamAppend[]): void => {
  if (appends.length === 0) throw new Error('appendToStreams needs at least one stream');
  const seen = new Set<string>();
  for (const a of appends) {
    if (a.events.length === 0) throw new Error(`appendToStreams: stream ${a.streamId} has no event`);
    if (seen.has(a.streamId)) throw new Error(`appendToStreams: stream ${a.streamId} named twice`);
    seen.add(a.streamId);
  }
};

/** Every method of the port, calling `store`'s, so that a decorator replaces only what it changes. */
export const delegatingTo = (store: EventStore): EventStore => ({
  name: store.name,
  appendToStreams: (a, o) => store.appendToStreams(a, o),
  readStream: (s, o) => store.readStream(s, o),
  readAll: (f, l) => store.readAll(f, l),
  subscribeToAll: (f) => store.subscribeToAll(f),
  waitForAppend: (t) => store.waitForAppend(t),
  headPosition: () => store.headPosition(),
  close: () => store.close(),
});
