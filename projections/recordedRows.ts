import pg from 'pg';
import { createDb, type Trx } from '../infra/db/database.js';
import type { SqlPool } from '../infra/db/sqlPool.js';
import type { RowChange } from '../infra/eventStore/postgresEventStore.js';

/**
 * Row changes recorded instead of sent, to travel in one statement (`es_apply_rows`, or `es_append_with` for
 * an append; docs/decisions/0044-one-round-trip-per-command.md). Handlers run as they always do, on a Kysely
 * whose connection records each compiled statement and answers it with no rows. That is only right for
 * statements whose answer nobody reads, so anything else gives up the recording (`NotRecordable`): a
 * statement that is not a write (a SELECT; a CTE unless the caller vouches for its writers), a RETURNING,
 * or a parameter that does not travel as text.
 */
export class NotRecordable extends Error {}

const WRITE = /^\s*(insert|update|delete)\b/i;
const WRITE_OR_CTE = /^\s*(insert|update|delete|with)\b/i;
const RETURNING = /\breturning\b/i;

// pg's own conversion of a parameter to its wire text, so a recorded statement means what a sent one does.
const { prepareValue } = (pg as unknown as { utils: { prepareValue(value: unknown): unknown } }).utils;

const wireText = (value: unknown): string | null => {
  const text = prepareValue(value);
  if (text === null || text === undefined) return null;
  if (typeof text !== 'string') throw new NotRecordable('a parameter that does not travel as text');
  return text;
};

/**
 * An event's log position before the append gives it one: a handler may pass it as a statement's parameter
 * as it stands (the append function puts the position in its place), and anything else it does with it
 * (arithmetic, comparison, text, JSON) gives up the recording.
 */
export class PositionOnAppend {
  constructor(readonly eventId: string) {}
  private refuse(): never {
    throw new NotRecordable('a log position used before the append gives it');
  }
  [Symbol.toPrimitive](): never {
    return this.refuse();
  }
  toJSON(): never {
    return this.refuse();
  }
  toPostgres(): never {
    return this.refuse();
  }
}

/** A compiled statement as a row change (the checkpoint the runner writes with its batch). */
export const rowChange = (compiled: { sql: string; parameters: readonly unknown[] }): RowChange => {
  const positions = compiled.parameters.flatMap((value, i): [number, string][] =>
    value instanceof PositionOnAppend ? [[i, value.eventId]] : [],
  );
  const params = compiled.parameters.map((value) => (value instanceof PositionOnAppend ? null : wireText(value)));
  return positions.length > 0 ? { sql: compiled.sql, params, positions } : { sql: compiled.sql, params };
};

const recordingPool = (changes: RowChange[], writes: RegExp): SqlPool => {
  const query = async (sql: string, params: readonly unknown[] = []) => {
    const verb = writes.exec(sql)?.[1];
    if (verb === undefined || RETURNING.test(sql)) throw new NotRecordable('a statement whose answer is read');
    changes.push(rowChange({ sql, parameters: params }));
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

/**
 * The statements `write` sends, recorded; null when one of them cannot be (its answer would be read).
 * `ctes`: the caller vouches that its WITH statements only write (no answer read), as the reports' roll-ups.
 */
export const recordWrites = async (
  write: (trx: Trx) => Promise<void>,
  options: { ctes?: boolean } = {},
): Promise<RowChange[] | null> => {
  const rows: RowChange[] = [];
  try {
    await write(createDb(recordingPool(rows, options.ctes ? WRITE_OR_CTE : WRITE)) as unknown as Trx);
  } catch (err) {
    if (err instanceof NotRecordable) return null;
    throw err;
  }
  return rows;
};
