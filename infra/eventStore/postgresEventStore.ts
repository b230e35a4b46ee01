import type { SqlClient, SqlPool } from '../db/sqlPool.js';
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
  constraint?: string;
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
  /**
   * The row changes of events not yet appended, for the append function to run in the append's own
   * statement (one round trip); null when they need what only the append knows, or read as they write.
   */
  record?(streamId: string, events: NewEvent[]): Promise<InlineRows | null>;
}

/** A statement compiled by the service and its parameters as wire text (`es_append_with` runs it). */
export interface RowChange {
  sql: string;
  params: (string | null)[];
  /** It must touch a row, or the whole statement fails (ES004): a checkpoint a rebuild moved on. */
  expect?: true;
  /** Parameters (by index) that take the log position of the appended event with this id (`es_append_with`). */
  positions?: [number, string][];
}

export interface InlineRows {
  rows: RowChange[];
  /** What to do once the append and its rows committed, given the events as stored. */
  afterCommit(events: RecordedEvent[]): void;
}

export interface PostgresEventStoreOptions {
  /** How often a live subscription polls for events appended by other processes. */
  pollMs?: number;
  batchSize?: number;
  inline?: InlineProjection;
}

interface AppendedRow {
  out_event_id: string;
  out_stream_position: number;
  out_global_position: number;
  out_recorded_at: Date;
  /** False for an event already stored under its id (a redelivered batch): nothing new to project. */
  out_new: boolean;
}

const APPEND = 'SELECT * FROM es_append($1, $2, $3::jsonb)';
const APPEND_WITH = 'SELECT * FROM es_append_with($1, $2, $3::jsonb, $4::jsonb)';
const READ_ALL = `SELECT ${columns} FROM es_read_all($1, $2)`;

/** The event store on PostgreSQL (a server, or the embedded one). */
export const createPostgresEventStore = (pool: SqlPool, options: PostgresEventStoreOptions = {}): EventStore => {
  const pollMs = options.pollMs ?? 250;
  const batchSize = options.batchSize ?? 500;
  const { inline } = options;
  const wakeup = new Wakeup();
  const subscriptions = new Set<Subscription>();

  const recordedOf = (streamId: string, events: NewEvent[], rows: AppendedRow[]): RecordedEvent[] => {
    const byId = new Map(events.map((e) => [e.eventId, e]));
    return rows
      .filter((r) => r.out_new)
      .map((r) => {
        const e = byId.get(r.out_event_id)!;
        return {
          eventId: r.out_event_id,
          type: e.type,
          data: e.data,
          metadata: e.metadata ?? {},
          streamId,
          streamPosition: Number(r.out_stream_position),
          globalPosition: Number(r.out_global_position),
          recordedAt: new Date(r.out_recorded_at),
        };
      });
  };

  /** The append and the inline read models in one transaction, on one connection. */
  const appendInline = async (
    hook: InlineProjection,
    streamId: string,
    events: NewEvent[],
    params: unknown[],
  ): Promise<AppendedRow[]> => {
    const client = await pool.connect();
    let open = false;
    try {
      await client.query('BEGIN');
      open = true;
      const { rows } = await client.query<AppendedRow>(APPEND, params);
      const appended = recordedOf(streamId, events, rows);
      const afterCommit = appended.length > 0 ? await hook.apply(client, appended) : () => undefined;
      await client.query('COMMIT');
      open = false;
      afterCommit();
      return rows;
    } catch (err) {
      if (open) await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  };

  /** The append and the inline rows in one statement, so in one implicit transaction and one round trip. */
  const appendWithRows = async (
    recorded: InlineRows,
    streamId: string,
    events: NewEvent[],
    params: unknown[],
  ): Promise<AppendedRow[]> => {
    const { rows } = await pool.query<AppendedRow>(
      recorded.rows.length > 0 ? APPEND_WITH : APPEND,
      recorded.rows.length > 0 ? [...params, JSON.stringify(recorded.rows)] : params,
    );
    const appended = recordedOf(streamId, events, rows);
    if (appended.length > 0) recorded.afterCommit(appended);
    return rows;
  };

  const appendInlineRows = async (
    hook: InlineProjection,
    streamId: string,
    events: NewEvent[],
    params: unknown[],
  ): Promise<AppendedRow[]> => {
    const recorded = (await hook.record?.(streamId, events)) ?? null;
    return recorded ? appendWithRows(recorded, streamId, events, params) : appendInline(hook, streamId, events, params);
  };

  const appendOnce = async (
    streamId: string,
    events: NewEvent[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> => {
    const payload = JSON.stringify(
      events.map((e) => ({ eventId: e.eventId, type: e.type, data: e.data, metadata: e.metadata ?? {} })),
    );
    const params = [streamId, expectedCode(expected), payload];
    try {
      const rows =
        inline && events.some((e) => inline.handles(e.type))
          ? await appendInlineRows(inline, streamId, events, params)
          : (await pool.query<AppendedRow>(APPEND, params)).rows;
      const last = rows[rows.length - 1];
      if (rows.some((r) => r.out_new)) wakeup.notify();
      return { nextExpectedRevision: Number(last.out_stream_position), position: Number(last.out_global_position) };
    } catch (err) {
      const e = err as PgError;
      if (e.code === 'ES001') {
        throw new ConcurrencyError(
          streamId,
          expected,
          e.detail === '' || e.detail === undefined ? null : Number(e.detail),
        );
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
          // Two appends whose inline read models locked the same rows in opposite orders: PostgreSQL
          // rolled one back whole, events and rows, so it can simply run again.
          if (e.code === '40P01' && attempt < 3) continue;
          // 'any' does not care which revision it lands on: try again on the new head.
          if (err instanceof ConcurrencyError && expectedRevision === 'any' && attempt < 10) continue;
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
