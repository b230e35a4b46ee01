import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInProcessBus } from '../infra/bus/inProcessBus.js';
import { createDb, type Db } from '../infra/db/database.js';
import { migrateToLatest } from '../infra/db/migrate.js';
import type { SqlPool } from '../infra/db/sqlPool.js';
import { eventStoreMigrations } from '../infra/eventStore/migrations.js';
import type { EventStore, RecordedEvent } from '../infra/eventStore/port.js';
import { createPostgresEventStore } from '../infra/eventStore/postgresEventStore.js';
import { createLogger } from '../infra/logger.js';
import { backends } from '../tests/support/backends.js';
import { inlineProjection, inlineProjectionMigrations } from './inline.js';
import { projector } from './projector.js';

/**
 * An append whose inline read models only write is one statement (`es_append_with`): the events and the
 * row changes travel together, no BEGIN, no COMMIT, no statement per row. Handlers that read, or need the
 * log position, fall back to the transaction of one statement per row, with the same rows.
 */

type Row = { id: string; note: string | null; at: Date; doc: unknown; tags: string[]; amount: number; seen: number };
type Note = { id: string; note: string | null; at: string; doc: unknown; tags: string[]; amount: number };

const blind = projector('ir_blind', {
  tables: ['ir_rows'],
  handlers: {
    Noted: async (trx, { data: d }: RecordedEvent<string, Note>) => {
      await sql`INSERT INTO ir_rows (id, note, at, doc, tags, amount, seen)
        VALUES (${d.id}, ${d.note}, ${new Date(d.at)}, ${JSON.stringify(d.doc)}, ${d.tags}, ${d.amount}, 1)
        ON CONFLICT (id) DO UPDATE SET seen = ir_rows.seen + 1`.execute(trx);
    },
    Seen: async (trx, { data: d }: RecordedEvent<string, { id: string }>) => {
      await sql`UPDATE ir_rows SET seen = seen + 1 WHERE id = ${d.id}`.execute(trx);
    },
  },
});

/** Reads the row it writes, and keeps the log position: it cannot be recorded before the append. */
const reading = projector('ir_reading', {
  tables: ['ir_positions'],
  handlers: {
    Placed: async (trx, e: RecordedEvent<string, { id: string }>) => {
      const before = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ir_positions`.execute(trx);
      await sql`INSERT INTO ir_positions (id, position, rank)
        VALUES (${e.data.id}, ${e.globalPosition}, ${before.rows[0].n + 1})`.execute(trx);
    },
  },
});

/** Keeps each event's log position as it stands, and one computed from it: the first travels as a placeholder. */
const positioned = projector('ir_positioned', {
  tables: ['ir_ledger'],
  handlers: {
    Booked: async (trx, e: RecordedEvent<string, { id: string }>) => {
      await sql`INSERT INTO ir_ledger (id, position) VALUES (${e.data.id}, ${e.globalPosition})`.execute(trx);
    },
    BookedNext: async (trx, e: RecordedEvent<string, { id: string }>) => {
      await sql`INSERT INTO ir_ledger (id, position) VALUES (${e.data.id}, ${e.globalPosition + 1})`.execute(trx);
    },
  },
});

describe.each(backends)('inline rows in the append statement ($name)', (backend) => {
  let pool: SqlPool;
  let drop: (() => Promise<void>) | undefined;
  let db: Db;
  let store: EventStore;
  const sent: string[] = [];
  let connects = 0;

  beforeAll(async () => {
    ({ pool, drop } = await backend.open());
    db = createDb(pool);
    await migrateToLatest(db, { ...eventStoreMigrations, ...inlineProjectionMigrations });
    await sql`CREATE TABLE ir_rows (id text PRIMARY KEY, note text, at timestamptz NOT NULL, doc jsonb NOT NULL,
      tags text[] NOT NULL, amount bigint NOT NULL, seen int NOT NULL)`.execute(db);
    await sql`CREATE TABLE ir_positions (id text PRIMARY KEY, position bigint NOT NULL, rank int NOT NULL)`.execute(db);
    await sql`CREATE TABLE ir_ledger (id text PRIMARY KEY, position bigint NOT NULL)`.execute(db);
    const counted: SqlPool = {
      ...pool,
      query: (text, params) => (sent.push(text), pool.query(text, params)),
      connect: () => (connects++, pool.connect()),
    };
    const deps = { bus: createInProcessBus(), db, logger: createLogger('silent'), kind: pool.kind };
    store = createPostgresEventStore(counted, { inline: inlineProjection([blind, reading, positioned], deps) });
  });
  afterAll(async () => {
    await store?.close();
    await db?.destroy();
    await drop?.();
  });

  const rowOf = (id: string) => sql<Row>`SELECT * FROM ir_rows WHERE id = ${id}`.execute(db).then((r) => r.rows[0]);
  const note = (over: Partial<Note> = {}): Note => ({
    id: randomUUID(),
    note: `it's "quoted", costs $1 and $12; -- not a comment`,
    at: '2030-01-01T12:00:00.123Z',
    doc: { a: [1, 'two', null], ü: "O'Brien" },
    tags: ['x', 'y,z', '{brace}'],
    amount: 9_007_199_254_740,
    ...over,
  });

  it('writes the events and the rows in one statement, every value as the handler gave it', async () => {
    const data = note();
    sent.length = 0;
    connects = 0;
    await store.appendToStream(`ir-${data.id}`, [{ eventId: randomUUID(), type: 'Noted', data }], {
      expectedRevision: 'no_stream',
    });
    expect(sent).toEqual([expect.stringContaining('es_append_with')]);
    expect(connects).toBe(0);
    expect(await rowOf(data.id)).toEqual({
      id: data.id,
      note: data.note,
      at: new Date(data.at),
      doc: data.doc,
      tags: data.tags,
      amount: data.amount,
      seen: 1,
    });
    const nothing = note({ note: null });
    await store.appendToStream(`ir-${nothing.id}`, [{ eventId: randomUUID(), type: 'Noted', data: nothing }], {
      expectedRevision: 'no_stream',
    });
    expect((await rowOf(nothing.id)).note).toBeNull();
  });

  it('a redelivered batch applies no row again; a refused append applies none', async () => {
    const data = note();
    const stream = `ir-${data.id}`;
    const events = [
      { eventId: randomUUID(), type: 'Noted', data },
      { eventId: randomUUID(), type: 'Seen', data: { id: data.id } },
    ];
    await store.appendToStream(stream, events, { expectedRevision: 'no_stream' });
    await store.appendToStream(stream, events, { expectedRevision: 'any' });
    expect((await rowOf(data.id)).seen).toBe(2);
    await expect(
      store.appendToStream(stream, [{ eventId: randomUUID(), type: 'Seen', data: { id: data.id } }], {
        expectedRevision: 0,
      }),
    ).rejects.toMatchObject({ name: 'ConcurrencyError' });
    expect((await rowOf(data.id)).seen).toBe(2);
  });

  it('a row change that fails takes the append with it', async () => {
    const data = note();
    const stream = `ir-${data.id}`;
    // An amount that is no number fails the row's cast inside the append's statement.
    await expect(
      store.appendToStream(
        stream,
        [{ eventId: randomUUID(), type: 'Noted', data: { ...data, amount: 'many' as unknown as number } }],
        { expectedRevision: 'no_stream' },
      ),
    ).rejects.toThrow();
    expect(await store.readStream(stream)).toEqual([]);
  });

  it('a handler that reads or needs the log position falls back to the transaction, with the same rows', async () => {
    const id = randomUUID();
    sent.length = 0;
    connects = 0;
    const { position } = await store.appendToStream(
      `ir-${id}`,
      [{ eventId: randomUUID(), type: 'Placed', data: { id } }],
      {
        expectedRevision: 'no_stream',
      },
    );
    expect(sent.some((s) => s.includes('es_append_with'))).toBe(false);
    expect(connects).toBe(1);
    const row = (await sql<{ position: number }>`SELECT position FROM ir_positions WHERE id = ${id}`.execute(db)).rows;
    expect(row).toEqual([{ position }]);
  });

  const ledger = (ids: string[]) =>
    sql<{ id: string; position: string }>`SELECT id, position FROM ir_ledger WHERE id = ANY(${ids}) ORDER BY position`
      .execute(db)
      .then((r) => r.rows.map((x) => ({ id: x.id, position: Number(x.position) })));

  it("a log position written as it stands travels in the append's statement, each event's its own", async () => {
    const ids = [randomUUID(), randomUUID()];
    sent.length = 0;
    connects = 0;
    await store.appendToStream(
      `ir-${ids[0]}`,
      ids.map((id) => ({ eventId: randomUUID(), type: 'Booked', data: { id } })),
      { expectedRevision: 'no_stream' },
    );
    expect(sent).toEqual([expect.stringContaining('es_append_with')]);
    expect(connects).toBe(0);
    const stored = await store.readStream(`ir-${ids[0]}`);
    expect(await ledger(ids)).toEqual(ids.map((id, i) => ({ id, position: stored[i].globalPosition })));
  });

  it('a log position computed with falls back to the transaction, with the right value', async () => {
    const id = randomUUID();
    sent.length = 0;
    connects = 0;
    const { position } = await store.appendToStream(
      `ir-${id}`,
      [{ eventId: randomUUID(), type: 'BookedNext', data: { id } }],
      { expectedRevision: 'no_stream' },
    );
    expect(sent.some((s) => s.includes('es_append_with'))).toBe(false);
    expect(connects).toBe(1);
    expect(await ledger([id])).toEqual([{ id, position: position + 1 }]);
  });
});
