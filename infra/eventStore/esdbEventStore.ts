import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  excludeSystemEvents,
  FORWARDS,
  jsonEvent,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AllStreamRecordedEvent,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type JSONType,
  type ReadPosition,
  type ResolvedEvent,
} from '@eventstore/db-client';
import {
  ConcurrencyError,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
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
 * Needs ESDB 22.6 or later, which reports the $all position of events read from a stream.
 */

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

const toRecorded = (e: EsdbRecorded): RecordedEvent => ({
  eventId: e.id,
  type: e.type,
  data: e.data,
  metadata: (e.metadata ?? {}) as EventMetadata,
  streamId: e.streamId,
  streamPosition: Number(e.revision),
  globalPosition: positionOf(e),
  recordedAt: e.created,
});

const toEsdbRevision = (e: ExpectedRevision): AppendExpectedRevision =>
  e === 'no_stream' ? NO_STREAM : e === 'any' ? ANY : BigInt(e);

/** ESDB reads forward from a position inclusively; callers skip what is not above it. */
const readFrom = (position: number): ReadPosition =>
  position <= 0 ? START : { commit: BigInt(position), prepare: BigInt(position) };

export const createEsdbEventStore = (url: string): EventStore => {
  const client = EventStoreDBClient.connectionString(url);
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

  const store: EventStore = {
    name: 'esdb',
    async appendToStream(streamId, events, { expectedRevision }) {
      if (events.length === 0) throw new Error('appendToStream needs at least one event');
      const data = events.map((e) =>
        jsonEvent({ id: e.eventId, type: e.type, data: e.data as JSONType, metadata: e.metadata ?? {} }),
      );
      let revision: bigint;
      try {
        ({ nextExpectedRevision: revision } = await client.appendToStream(streamId, data, {
          expectedRevision: toEsdbRevision(expectedRevision),
        }));
      } catch (err) {
        if (!(err instanceof WrongExpectedVersionError)) throw err;
        // A redelivered batch whose revision no longer matches: ESDB does not dedupe it, so look for it.
        const stored = await findStored(streamId, events);
        if (stored) return stored;
        throw new ConcurrencyError(
          streamId,
          expectedRevision,
          err.actualVersion === NO_STREAM ? null : Number(err.actualVersion),
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
