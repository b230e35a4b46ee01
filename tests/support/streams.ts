import { appendToStream } from '../../infra/eventStore/port.js';
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { EVENT_SCHEMAS } from '../../domain/events.js';
import { UPCASTERS } from '../../domain/upcasters.js';
import { createDb } from '../../infra/db/database.js';
import { migrateToLatest } from '../../infra/db/migrate.js';
import { eventStoreMigrations } from '../../infra/eventStore/migrations.js';
import { eventStoreFunctions } from '../../infra/eventStore/functions.js';
import type { EventStore } from '../../infra/eventStore/port.js';
import { createPostgresEventStore } from '../../infra/eventStore/postgresEventStore.js';
import { withEventVersioning } from '../../infra/eventStore/versioning.js';
import { testDatabase } from './testDatabases.js';

/**
 * The middle tier of command tests: a real event store on a test database of the embedded PostgreSQL, streams set up as history
 * (`existingStream`), and assertions on what a command appended after it (`expectNewEvents`). Reads are
 * counted per stream (`readsOf`), so a test can hold a handler to one read per stream.
 */
export interface StreamsUnderTest {
  store: EventStore;
  /** Appends past events to a stream, as if earlier commands had written them. */
  existingStream(streamId: string, events: { type: string; data: unknown }[]): Promise<void>;
  /** Asserts the events appended to the stream after its history (type and data), in order. */
  expectNewEvents(streamId: string, expected: { type: string; data?: unknown }[]): Promise<void>;
  /** How many times the stream was read since the last `resetReads`. */
  readsOf(streamId: string): number;
  resetReads(): void;
  close(): Promise<void>;
}

export const streamsOnEmbedded = async (): Promise<StreamsUnderTest> => {
  const pool = await testDatabase('empty');
  const db = createDb(pool);
  await migrateToLatest(db, eventStoreMigrations, eventStoreFunctions);
  const store = withEventVersioning(createPostgresEventStore(pool, { pollMs: 20 }), {
    schemas: EVENT_SCHEMAS,
    upcasters: UPCASTERS,
    checkAppends: true,
  });
  const history = new Map<string, number>();
  const reads = new Map<string, number>();
  const readStream = store.readStream.bind(store);
  store.readStream = (streamId) => {
    reads.set(streamId, (reads.get(streamId) ?? 0) + 1);
    return readStream(streamId);
  };
  return {
    store,
    async existingStream(streamId, events) {
      const r = await appendToStream(
        store,
        streamId,
        events.map((e) => ({ eventId: randomUUID(), ...e })),
        { expectedRevision: 'any' },
      );
      history.set(streamId, r.nextExpectedRevision + 1);
    },
    async expectNewEvents(streamId, expected) {
      const all = await readStream(streamId);
      const appended = all.slice(history.get(streamId) ?? 0).map((e) => ({ type: e.type, data: e.data }));
      expect(appended).toMatchObject(expected);
      expect(appended).toHaveLength(expected.length);
    },
    readsOf: (streamId) => reads.get(streamId) ?? 0,
    resetReads: () => reads.clear(),
    async close() {
      await store.close();
      await db.destroy();
    },
  };
};
