import {
  ANY,
  BACKWARDS,
  END,
  excludeSystemEvents,
  FORWARDS,
  jsonEvent,
  KurrentDBClient,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AllStreamRecordedEvent,
  type AllStreamResolvedEvent,
  type AppendStreamState,
  type JSONType,
  type ReadPosition,
  type ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import {
  checkAppends,
  ConcurrencyError,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  type StreamAppend,
  type Subscription,
} from './port.js';
import { Wakeup } from './wakeup.js';

/*
 * The event store on EventStoreDB (selected by ESDB_URL).
 *
 * Global positions are ESDB commit positions, i.e. byte offsets in its transaction log: ascending and
 * unique per event (appends here never use explicit transactions), but NOT dense. Nothing may compute
 * "the next position" as position + 1 or count events by subtracting positions; compare them only, and
 * read or subscribe from 0 or from a position this store reported (ESDB cannot start inside a record).
 * The log is append-only, so a reader of $all never meets an event that commits late below its position.
 *
 * ESDB writes system events ($-prefixed types, $-prefixed streams such as $stats-…, link events '$>'):
 * readAll, subscribeToAll and headPosition leave them out, as the port only knows our own events.
 *
 * Needs KurrentDB 25.1 or later (the maintained client, @kurrent/kurrentdb-client): an append to several
 * streams is one atomic multi-stream append there, and an older server is refused when the store opens
 * rather than served stream by stream (docs/decisions/0101-one-transaction-per-command.md). The multi-stream
 * append takes string-valued properties as metadata, so our metadata travels there as one JSON string
 * (`$metadata`) that reads unwrap.
 */

/** The first server version whose multi-stream append is atomic. */
const MULTI_STREAM_APPEND_SINCE = [25, 1];

/** A server that cannot append several streams atomically: the store refuses to open on it. */
export class MultiStreamAppendUnsupported extends Error {
  constructor(version: string) {
    super(
      `EventStoreDB/KurrentDB ${version} cannot append to several streams atomically (needs KurrentDB ` +
        `${MULTI_STREAM_APPEND_SINCE.join('.')} or later); the service will not append stream by stream`,
    );
    this.name = 'MultiStreamAppendUnsupported';
  }
}

const WRAPPED_METADATA = '$metadata';

const PAGE = 500;

type EsdbRecorded = NonNullable<ResolvedEvent['event']>;

const isSystem = (e: { streamId: string; type: string }) => e.streamId.startsWith('$') || e.type.startsWith('$');

const positionOf = (e: EsdbRecorded): number => {
  if (!e.position)
    throw new Error(
      `EventStoreDB did not report the $all position of ${e.streamId}@${e.revision}: needs server 22.6 or later`,
    );
  return Number(e.position.commit);
};

const metadataOf = (e: EsdbRecorded): EventMetadata => {
  const m = (e.metadata ?? {}) as Record<string, unknown>;
  const wrapped = m[WRAPPED_METADATA];
  return (typeof wrapped === 'string' ? JSON.parse(wrapped) : m) as EventMetadata;
};

const toRecorded = (e: EsdbRecorded): RecordedEvent => ({
  eventId: e.id,
  type: e.type,
  data: e.data,
  metadata: metadataOf(e),
  streamId: e.streamId,
  streamPosition: Number(e.revision),
  globalPosition: positionOf(e),
  recordedAt: e.created,
});

const toEsdbRevision = (e: ExpectedRevision): AppendStreamState =>
  e === 'no_stream' ? NO_STREAM : e === 'any' ? ANY : BigInt(e);

/** ESDB reads forward from a position inclusively; callers skip what is not above it. */
const readFrom = (position: number): ReadPosition =>
  position <= 0 ? START : { commit: BigInt(position), prepare: BigInt(position) };

const versionAtLeast = (version: string, [major, minor]: number[]): boolean => {
  const [a = 0, b = 0] = version.split('.').map((x) => Number.parseInt(x, 10));
  return a > major || (a === major && b >= minor);
};

/** The store on the server at `url`, once it has said it appends several streams atomically. */
export const openEsdbEventStore = async (url: string): Promise<EventStore> => {
  const client = KurrentDBClient.connectionString(url);
  // The client asks the server for its features on its first call; its version is what decides.
  const { serverVersion } = await (client as unknown as { capabilities: Promise<{ serverVersion: string }> })
    .capabilities;
  if (!versionAtLeast(serverVersion, MULTI_STREAM_APPEND_SINCE)) {
    await client.dispose();
    throw new MultiStreamAppendUnsupported(serverVersion);
  }
  return createEsdbEventStore(client);
};

const createEsdbEventStore = (client: KurrentDBClient): EventStore => {
  const wakeup = new Wakeup();
  const subscriptions = new Set<Subscription>();

  const readEsdbStream = async (
    streamId: string,
    options: Parameters<typeof client.readStream>[1],
  ): Promise<EsdbRecorded[]> => {
    const out: EsdbRecorded[] = [];
    try {
      for await (const r of client.readStream(streamId, options)) if (r.event) out.push(r.event);
    } catch (err) {
      if (err instanceof StreamNotFoundError) return [];
      throw err;
    }
    return out;
  };

  /** One page of $all, system events included (the callers page on their positions too). */
  const readAllPage = async (direction: typeof FORWARDS | typeof BACKWARDS, from: ReadPosition) => {
    const events: AllStreamRecordedEvent[] = [];
    let seen = 0;
    for await (const r of client.readAll({
      direction,
      fromPosition: from,
      maxCount: PAGE,
    }) as AsyncIterable<AllStreamResolvedEvent>) {
      seen++;
      if (r.event) events.push(r.event);
    }
    return { events, full: seen === PAGE };
  };

  /** The stored copies of a batch, when every one of its events is already in the stream. */
  const findStored = async (streamId: string, events: NewEvent[]): Promise<AppendResult | null> => {
    const ids = new Set(events.map((e) => e.eventId));
    const stored = (await readEsdbStream(streamId, { direction: FORWARDS, fromRevision: START })).filter((e) =>
      ids.has(e.id),
    );
    if (stored.length === 0) return null;
    if (stored.length < ids.size) throw new Error(`Stream ${streamId}: some events of this batch are already stored`);
    const last = stored[stored.length - 1];
    return { nextExpectedRevision: Number(last.revision), position: positionOf(last) };
  };

  const appendOne = async (
    streamId: string,
    events: NewEvent[],
    expectedRevision: ExpectedRevision,
  ): Promise<AppendResult> => {
    const data = events.map((e) =>
      jsonEvent({ id: e.eventId, type: e.type, data: e.data as JSONType, metadata: e.metadata ?? {} }),
    );
    let revision: bigint;
    try {
      ({ nextExpectedRevision: revision } = await client.appendToStream(streamId, data, {
        streamState: toEsdbRevision(expectedRevision),
      }));
    } catch (err) {
      if (!(err instanceof WrongExpectedVersionError)) throw err;
      // A redelivered batch whose revision no longer matches: ESDB does not dedupe it, so look for it.
      const stored = await findStored(streamId, events);
      if (stored) return stored;
      throw new ConcurrencyError(
        streamId,
        expectedRevision,
        err.actualState === NO_STREAM || typeof err.actualState !== 'bigint' ? null : Number(err.actualState),
      );
    }
    wakeup.notify();
    // ESDB dedupes a redelivered batch when its expected revision still matches where it was stored and,
    // with 'any', when it is among the recent writes it remembers (as a redelivery is). Its reply to a
    // deduped batch does not reliably carry the original position, so the position always comes from
    // the stored last event of the batch, at the revision ESDB reports.
    const [last] = await readEsdbStream(streamId, { direction: FORWARDS, fromRevision: revision, maxCount: 1 });
    if (last?.id === events[events.length - 1].eventId)
      return { nextExpectedRevision: Number(revision), position: positionOf(last) };
    const stored = await findStored(streamId, events);
    if (!stored) throw new Error(`Stream ${streamId}: EventStoreDB acknowledged an append that is not in the stream`);
    return stored;
  };

  /** Several streams in one atomic append; a batch redelivered whole answers what is stored. */
  const appendMany = async (appends: StreamAppend[]) => {
    try {
      const { responses } = await client.multiStreamAppend(
        appends.map((a) => ({
          streamName: a.streamId,
          expectedState: toEsdbRevision(a.expectedRevision),
          events: a.events.map((e) =>
            jsonEvent({
              id: e.eventId,
              type: e.type,
              data: e.data as JSONType,
              metadata: { [WRAPPED_METADATA]: JSON.stringify(e.metadata ?? {}) },
            }),
          ),
        })),
      );
      wakeup.notify();
      return Promise.all(
        appends.map(async (a) => {
          const revision = responses.find((r) => r.streamName === a.streamId)!.revision;
          const [last] = await readEsdbStream(a.streamId, { direction: FORWARDS, fromRevision: revision, maxCount: 1 });
          return { streamId: a.streamId, nextExpectedRevision: Number(revision), position: positionOf(last) };
        }),
      );
    } catch (err) {
      if (!(err instanceof WrongExpectedVersionError)) throw err;
      const stored = await Promise.all(appends.map((a) => findStored(a.streamId, a.events)));
      if (stored.every((x) => x !== null)) return stored.map((x, i) => ({ streamId: appends[i].streamId, ...x! }));
      const stale = appends.find((a) => a.streamId === err.streamName) ?? appends[0];
      const actual = err.actualState;
      throw new ConcurrencyError(
        stale.streamId,
        stale.expectedRevision,
        typeof actual === 'bigint' ? Number(actual) : null,
      );
    }
  };

  const store: EventStore = {
    name: 'esdb',
    async appendToStreams(appends) {
      checkAppends(appends);
      const streams =
        appends.length === 1
          ? [
              {
                streamId: appends[0].streamId,
                ...(await appendOne(appends[0].streamId, appends[0].events, appends[0].expectedRevision)),
              },
            ]
          : await appendMany(appends);
      return { position: Math.max(...streams.map((x) => x.position)), streams };
    },
    async readStream(streamId, { from = 0 } = {}) {
      const fromRevision = from > 0 ? BigInt(from) : START;
      return (await readEsdbStream(streamId, { direction: FORWARDS, fromRevision })).map(toRecorded);
    },
    async readAll(fromPosition, limit) {
      const out: RecordedEvent[] = [];
      let from = fromPosition;
      for (;;) {
        const start = from;
        const page = await readAllPage(FORWARDS, readFrom(from));
        for (const e of page.events) {
          if (Number(e.position.commit) <= from) continue;
          from = Number(e.position.commit);
          if (isSystem(e)) continue;
          out.push(toRecorded(e));
          if (out.length === limit) return out;
        }
        if (!page.full || from === start) return out;
      }
    },
    subscribeToAll(fromPosition) {
      const esdb = client.subscribeToAll({ fromPosition: readFrom(fromPosition), filter: excludeSystemEvents() });
      let closed = false;
      const sub: Subscription = {
        async close() {
          if (closed) return;
          closed = true;
          subscriptions.delete(sub);
          // Cancelling the gRPC call does not end the client's stream: destroy it so that iteration stops.
          await esdb.unsubscribe();
          esdb.destroy();
        },
        async *[Symbol.asyncIterator]() {
          let position = fromPosition;
          try {
            for await (const r of esdb as AsyncIterable<AllStreamResolvedEvent>) {
              if (closed) return;
              const e = r.event;
              if (!e || isSystem(e) || Number(e.position.commit) <= position) continue;
              position = Number(e.position.commit);
              yield toRecorded(e);
            }
          } catch (err) {
            // A closed subscription ends its stream early, which surfaces as an error.
            if (!closed) throw err;
          } finally {
            await sub.close();
          }
        },
      };
      subscriptions.add(sub);
      return sub;
    },
    waitForAppend: (timeoutMs) => wakeup.wait(timeoutMs),
    async headPosition() {
      let from: ReadPosition = END;
      for (;;) {
        const page = await readAllPage(BACKWARDS, from);
        const head = page.events.find((e) => !isSystem(e));
        if (head) return Number(head.position.commit);
        if (!page.full || page.events.length === 0) return 0;
        from = page.events[page.events.length - 1].position;
      }
    },
    async close() {
      await Promise.all([...subscriptions].map((s) => s.close()));
      await client.dispose();
    },
  };
  return store;
};
