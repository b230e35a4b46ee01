import type { SqlPool } from '../db/sqlPool.js';
import {
  ConcurrencyError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  type Subscription,
} from './port.js';
import { Wakeup } from './wakeup.js';

interface EventRow {
  global_position: number;
  event_id: string;
  stream_id: string;
  stream_position: number;
  type: string;
  data: unknown;
  metadata: RecordedEvent['metadata'];
  recorded_at: Date;
}

const toRecorded = (r: EventRow): RecordedEvent => ({
  eventId: r.event_id,
  type: r.type,
  data: r.data,
  metadata: r.metadata,
  streamId: r.stream_id,
  streamPosition: Number(r.stream_position),
  globalPosition: Number(r.global_position),
  recordedAt: r.recorded_at,
});

const columns = 'global_position, event_id, stream_id, stream_position, type, data, metadata, recorded_at';

const expectedCode = (e: ExpectedRevision): number => (e === 'no_stream' ? -1 : e === 'any' ? -2 : e);

interface PgError {
  code?: string;
  constraint?: string;
  detail?: string;
}

export interface PostgresEventStoreOptions {
  /** How often a live subscription polls for events appended by other processes. */
  pollMs?: number;
  batchSize?: number;
}

/** The event store on PostgreSQL or PGlite: the same SQL serves both. */
export const createPostgresEventStore = (pool: SqlPool, options: PostgresEventStoreOptions = {}): EventStore => {
  const pollMs = options.pollMs ?? 250;
  const batchSize = options.batchSize ?? 500;
  const wakeup = new Wakeup();
  const subscriptions = new Set<Subscription>();

  /** The result of an earlier append of exactly these events, if there was one. */
  const alreadyStored = async (events: NewEvent[]): Promise<AppendResult | undefined> => {
    const { rows } = await pool.query<{ stream_position: number; global_position: number }>(
      'SELECT stream_position, global_position FROM events WHERE event_id = ANY($1::uuid[]) ORDER BY global_position',
      [events.map((e) => e.eventId)],
    );
    if (rows.length === 0) return undefined;
    if (rows.length < events.length) {
      throw Object.assign(new Error('some events of this batch are already stored'), { code: 'ES002' });
    }
    const last = rows[rows.length - 1];
    return { nextExpectedRevision: Number(last.stream_position), position: Number(last.global_position) };
  };

  const appendOnce = async (streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> => {
    const payload = JSON.stringify(events.map((e) => ({ eventId: e.eventId, type: e.type, data: e.data, metadata: e.metadata ?? {} })));
    try {
      const { rows } = await pool.query<{ out_stream_position: number; out_global_position: number }>(
        'SELECT out_stream_position, out_global_position FROM es_append($1, $2, $3::jsonb)',
        [streamId, expectedCode(expected), payload],
      );
      const last = rows[rows.length - 1];
      wakeup.notify();
      return { nextExpectedRevision: Number(last.out_stream_position), position: Number(last.out_global_position) };
    } catch (err) {
      const e = err as PgError;
      // es_append checks idempotency only when the append fails, which a redelivered batch always does
      // (wrong revision, or a unique key of its twin): the common path saves a lookup.
      if (e.code === 'ES001' || e.code === '23505') {
        const stored = await alreadyStored(events);
        if (stored) return stored;
      }
      if (e.code === 'ES001') {
        throw new ConcurrencyError(streamId, expected, e.detail === '' || e.detail === undefined ? null : Number(e.detail));
      }
      if (e.code === '23505' && e.constraint === 'events_stream_id_stream_position_key') {
        // Another append to this stream committed between our revision check and our insert.
        throw new ConcurrencyError(streamId, expected, null);
      }
      throw err;
    }
  };

  const store: EventStore = {
    name: pool.kind,
    async appendToStream(streamId, events, { expectedRevision }) {
      if (events.length === 0) throw new Error('appendToStream needs at least one event');
      for (let attempt = 0; ; attempt++) {
        try {
          return await appendOnce(streamId, events, expectedRevision);
        } catch (err) {
          const e = err as PgError;
          // A redelivered batch racing its twin: the twin won, so this append is the no-op it promises.
          if (e.code === '23505' && e.constraint === 'events_event_id_key' && attempt < 3) continue;
          // 'any' does not care which revision it lands on: try again on the new head.
          if (err instanceof ConcurrencyError && expectedRevision === 'any' && attempt < 10) continue;
          throw err;
        }
      }
    },
    async readStream(streamId) {
      const { rows } = await pool.query<EventRow>(
        `SELECT ${columns} FROM events WHERE stream_id = $1 ORDER BY stream_position`,
        [streamId],
      );
      return rows.map(toRecorded);
    },
    async readAll(fromPosition, limit) {
      const { rows } = await pool.query<EventRow>(
        `SELECT ${columns} FROM events
          WHERE global_position > $1 AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
          ORDER BY global_position LIMIT $2`,
        [fromPosition, limit],
      );
      return rows.map(toRecorded);
    },
    subscribeToAll(fromPosition) {
      let closed = false;
      let position = fromPosition;
      const sub: Subscription = {
        async close() {
          closed = true;
          subscriptions.delete(sub);
          wakeup.notify();
        },
        async *[Symbol.asyncIterator]() {
          while (!closed) {
            const batch = await store.readAll(position, batchSize);
            for (const e of batch) {
              if (closed) return;
              position = e.globalPosition;
              yield e;
            }
            if (batch.length < batchSize && !closed) await wakeup.wait(pollMs);
          }
        },
      };
      subscriptions.add(sub);
      return sub;
    },
    waitForAppend: (timeoutMs) => wakeup.wait(timeoutMs),
    async headPosition() {
      const { rows } = await pool.query<{ head: number | null }>('SELECT max(global_position) AS head FROM events');
      return Number(rows[0]?.head ?? 0);
    },
    async close() {
      await Promise.all([...subscriptions].map((s) => s.close()));
    },
  };
  return store;
};
