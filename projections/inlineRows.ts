import pg from 'pg';
import type { BusMessage } from '../infra/bus/port.js';
import { createDb, type Trx } from '../infra/db/database.js';
import type { SqlPool } from '../infra/db/sqlPool.js';
import type { RowChange } from '../infra/eventStore/postgresEventStore.js';
import type { NewEvent, RecordedEvent } from '../infra/eventStore/port.js';
import type { Projector } from './projector.js';
import { applyEvents } from './runner.js';

/**
 * The inline read models' row changes for events not yet appended, as statements the append function
 * runs in the append's own statement (`es_append_with`, docs/decisions/0044-one-round-trip-per-command.md).
 * The projectors' handlers run as they always do, on a Kysely whose connection records each compiled
 * statement instead of sending it. That is only right for a handler that writes blindly, so anything else
 * gives up the recording (the event store then takes the transaction of one statement per row):
 * a statement that reads (a SELECT, a RETURNING, a CTE, raw SQL that is not a write), a parameter that does
 * not travel as text, or an event's log position, stream position or recorded time, which exist only once
 * the events are appended.
 */

class NotRecordable extends Error {}

const WRITE = /^\s*(insert|update|delete)\b/i;
const RETURNING = /\breturning\b/i;

// pg's own conversion of a parameter to its wire text, so a recorded statement means what a sent one does.
const { prepareValue } = (pg as unknown as { utils: { prepareValue(value: unknown): unknown } }).utils;

const wireText = (value: unknown): string | null => {
  const text = prepareValue(value);
  if (text === null || text === undefined) return null;
  if (typeof text !== 'string') throw new NotRecordable('a parameter that does not travel as text');
  return text;
};

const recordingPool = (changes: RowChange[]): SqlPool => {
  const query = async (sql: string, params: readonly unknown[] = []) => {
    const verb = WRITE.exec(sql)?.[1];
    if (verb === undefined || RETURNING.test(sql)) throw new NotRecordable('a statement whose answer is read');
    changes.push({ sql, params: params.map(wireText) });
    return { rows: [], rowCount: 0, command: verb.toUpperCase() };
  };
  const typed = query as SqlPool['query'];
  return {
    kind: 'postgres',
    connect: async () => ({ query: typed, release: () => undefined, broken: false }),
    query: typed,
    end: async () => undefined,
  };
};

/** An event as a handler meets it before it is appended: what only the append knows throws. */
const beforeAppend = (streamId: string, e: NewEvent): RecordedEvent => {
  const event = { eventId: e.eventId, type: e.type, data: e.data, metadata: e.metadata ?? {}, streamId };
  for (const key of ['streamPosition', 'globalPosition', 'recordedAt'])
    Object.defineProperty(event, key, {
      get() {
        throw new NotRecordable(`${key} is known once appended`);
      },
    });
  return event as RecordedEvent;
};

/** The row changes and the messages the projectors' handlers make of `events`; null when one gives up. */
export const recordRows = async (
  projectors: Projector[],
  streamId: string,
  events: NewEvent[],
): Promise<{ rows: RowChange[]; emitted: BusMessage[][] } | null> => {
  const rows: RowChange[] = [];
  const trx = createDb(recordingPool(rows)) as unknown as Trx;
  const pending = events.map((e) => beforeAppend(streamId, e));
  const emitted = projectors.map(() => [] as BusMessage[]);
  try {
    for (const [i, p] of projectors.entries()) await applyEvents(trx, p, pending, (m) => emitted[i].push(m));
  } catch (err) {
    if (err instanceof NotRecordable) return null;
    throw err;
  }
  return { rows, emitted };
};
