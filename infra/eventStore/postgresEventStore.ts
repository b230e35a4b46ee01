import type { SqlClient, SqlPool } from '../db/sqlPool.js';
import {
  checkAppends,
  type AlongsideWrite,
  ConcurrencyError,
  type EventStore,
  type ExpectedRevision,
  type RecordedEvent,
  type StreamAppend,
  type StreamsAppended,
  type Subscription,
} from './port.js';
import { Wakeup } from './wakeup.js';

/** An `events` row as the adapter selects it (`columns`). */
export interface EventRow {
  global_position: number;
  event_id: string;
  stream_id: string;
  stream_position: number;
  type: string;
  data: unknown;
  metadata: RecordedEvent['metadata'];
  recorded_at: Date;
}

export const toRecorded = (r: EventRow): RecordedEvent => ({
  eventId: r.event_id,
  type: r.type,
  data: r.data,
  metadata: r.metadata,
  streamId: r.stream_id,
  streamPosition: Number(r.stream_position),
  globalPosition: Number(r.global_position),
  recordedAt: r.recorded_at,
});

export const columns = 'global_position, event_id, stream_id, stream_position, type, data, metadata, recorded_at';

const expectedCode = (e: ExpectedRevision): number => (e === 'no_stream' ? -1 : e === 'any' ? -2 : e);

interface PgError {
  code?: string;
  detail?: string;
}

/**
 * Read models applied in the append's own transaction (inline projections): an answer that reads them
 * needs no wait, and they can never lag the log. The adapter knows nothing of read models: it hands the
 * appended events and the connection holding the transaction to this hook.
 */
export interface InlineProjection {
  /** Whether an event of this type changes an inline read model (an append of none opens no transaction). */
  handles(type: string): boolean;
  /** Applies the events on `client`, inside the append's transaction; returns what to do once it commits. */
  apply(client: SqlClient, events: RecordedEvent[]): Promise<() => void>;
}

export interface PostgresEventStoreOptions {
  /** How often a live subscription polls for events appended by other processes. */
  pollMs?: number;
  batchSize?: number;
  inline?: InlineProjection;
}

interface AppendedRow {
  out_stream: string;
  out_event_id: string;
  out_stream_position: number;
  out_global_position: number;
  out_recorded_at: Date;
  /** False for an event already stored under its id (a redelivered batch): nothing new to project. */
  out_new: boolean;
}

const APPEND = 'SELECT * FROM es_append_streams($1::jsonb)';
const READ_ALL = `SELECT ${columns} FROM es_read_all($1, $2)`;

/** The event store on PostgreSQL (a server, or the embedded one). */
export const createPostgresEventStore = (pool: SqlPool, options: PostgresEventStoreOptions = {}): EventStore => {
  const pollMs = options.pollMs ?? 250;
  const batchSize = options.batchSize ?? 500;
  const { inline } = options;
  const wakeup = new Wakeup();
  const subscriptions = new Set<Subscription>();

  const recordedOf = (appends: StreamAppend[], rows: AppendedRow[]): RecordedEvent[] => {
    const byId = new Map(appends.flatMap((a) => a.events.map((e) => [e.eventId, e] as const)));
    return rows
      .filter((r) => r.out_new)
      .map((r) => {
        const e = byId.get(r.out_event_id)!;
        return {
          eventId: r.out_event_id,
          type: e.type,
          data: e.data,
          metadata: e.metadata ?? {},
          streamId: r.out_stream,
          streamPosition: Number(r.out_stream_position),
          globalPosition: Number(r.out_global_position),
          recordedAt: new Date(r.out_recorded_at),
        };
      });
  };

  /**
   * The append alone, or with the inline read models and the rows written alongside in one transaction, on
   * one connection. The function holds a session-level lock while it inserts and releases it before anything
   * it raises; a failure it did not raise (a cancelled statement) may leave it held, so the connection lets
   * it go before it is reused.
   */
  const appendOn = async (
    hook: InlineProjection | undefined,
    appends: StreamAppend[],
    payload: string,
    alongside: AlongsideWrite[],
  ) => {
    const client = await pool.connect();
    let open = false;
    try {
      if (!hook && alongside.length === 0) return (await client.query<AppendedRow>(APPEND, [payload])).rows;
      await client.query('BEGIN');
      open = true;
      const { rows } = await client.query<AppendedRow>(APPEND, [payload]);
      const appended = recordedOf(appends, rows);
      const afterCommit = hook && appended.length > 0 ? await hook.apply(client, appended) : () => undefined;
      for (const write of alongside) await write(client);
      await client.query('COMMIT');
      open = false;
      afterCommit();
      return rows;
    } catch (err) {
      if (open) await client.query('ROLLBACK').catch(() => undefined);
      if (!/^ES00/.test((err as PgError).code ?? '') && !client.broken)
        await client.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  };

  const appendOnce = async (appends: StreamAppend[], alongside: AlongsideWrite[]): Promise<StreamsAppended> => {
    const payload = JSON.stringify(
      appends.map((a) => ({
        stream: a.streamId,
        expected: expectedCode(a.expectedRevision),
        events: a.events.map((e) => ({ eventId: e.eventId, type: e.type, data: e.data, metadata: e.metadata ?? {} })),
      })),
    );
    try {
      const rows = await appendOn(
        inline && appends.some((a) => a.events.some((e) => inline.handles(e.type))) ? inline : undefined,
        appends,
        payload,
        alongside,
      );
      if (rows.some((r) => r.out_new)) wakeup.notify();
      const streams = appends.map((a) => {
        const last = rows.filter((r) => r.out_stream === a.streamId).at(-1)!;
        return {
          streamId: a.streamId,
          nextExpectedRevision: Number(last.out_stream_position),
          position: Number(last.out_global_position),
        };
      });
      return { position: Math.max(...streams.map((x) => x.position)), streams };
    } catch (err) {
      const e = err as PgError;
      if (e.code === 'ES001') {
        const { stream, actual } = JSON.parse(e.detail ?? '{}') as { stream: string; actual: number | null };
        const expected = appends.find((a) => a.streamId === stream)?.expectedRevision ?? 'any';
        throw new ConcurrencyError(stream, expected, actual);
      }
      throw err;
    }
  };

  const store: EventStore = {
    name: pool.kind,
    async appendToStreams(appends, options) {
      checkAppends(appends);
      for (let attempt = 0; ; attempt++) {
        try {
          return await appendOnce(appends, options?.alongside ?? []);
        } catch (err) {
          const e = err as PgError;
          // Two appends whose inline read models locked the same rows in opposite orders: PostgreSQL
          // rolled one back whole, events and rows, so it can simply run again.
          if (e.code === '40P01' && attempt < 3) continue;
          // 'any' does not care which revision it lands on: try again on the new head.
          const stale = err instanceof ConcurrencyError ? appends.find((a) => a.streamId === err.streamId) : undefined;
          if (stale?.expectedRevision === 'any' && attempt < 10) continue;
          throw err;
        }
      }
    },
    async readStream(streamId, { from = 0 } = {}) {
      const { rows } =
        from > 0
          ? await pool.query<EventRow>(
              `SELECT ${columns} FROM events WHERE stream_id = $1 AND stream_position >= $2 ORDER BY stream_position`,
              [streamId, from],
            )
          : await pool.query<EventRow>(`SELECT ${columns} FROM events WHERE stream_id = $1 ORDER BY stream_position`, [
              streamId,
            ]);
      return rows.map(toRecorded);
    },
    async readAll(fromPosition, limit) {
      const { rows } = await pool.query<EventRow>(READ_ALL, [fromPosition, limit]);
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

/** A stream's last event in one statement (the hash chain's predecessor: infra/eventStore/hashChain.ts). */
export const postgresStreamHead =
  (pool: SqlPool) =>
  async (streamId: string): Promise<RecordedEvent | null> => {
    const { rows } = await pool.query<EventRow>(
      `SELECT ${columns} FROM events WHERE stream_id = $1 ORDER BY stream_position DESC LIMIT 1`,
      [streamId],
    );
    return rows[0] ? toRecorded(rows[0]) : null;
  };
