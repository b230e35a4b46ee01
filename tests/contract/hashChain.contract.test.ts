import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkChain, hashOf } from '../../infra/audit/chain.js';
import { createDb } from '../../infra/db/database.js';
import { migrateToLatest } from '../../infra/db/migrate.js';
import { openEsdbEventStore } from '../../infra/eventStore/esdbEventStore.js';
import { withHashChain, type HashChainOptions } from '../../infra/eventStore/hashChain.js';
import { eventStoreMigrations } from '../../infra/eventStore/migrations.js';
import { eventStoreFunctions } from '../../infra/eventStore/functions.js';
import { createPostgresEventStore, postgresStreamHead } from '../../infra/eventStore/postgresEventStore.js';
import {
  ConcurrencyError,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
  appendToStream,
} from '../../infra/eventStore/port.js';
import { backends } from '../support/backends.js';

/**
 * The hash chain (infra/eventStore/hashChain.ts) on every adapter: appends to a chained stream carry prevHash and
 * hash in their metadata, the chain verifies from what a read returns, and concurrent appends never chain to the
 * same predecessor.
 */
interface Harness {
  raw: EventStore;
  readHead?: HashChainOptions['readHead'];
  teardown(): Promise<void>;
}

const event = (n: number, metadata?: NewEvent['metadata']): NewEvent => ({
  eventId: randomUUID(),
  type: 'LedgerEntryRecorded',
  data: { n, amountCents: 100 * n, note: 'ünïcødé €' },
  metadata,
});

const chainedView = (events: RecordedEvent[]) =>
  events.map((e) => ({
    stream: e.streamId,
    position: e.streamPosition,
    eventId: e.eventId,
    type: e.type,
    data: e.data,
    metadata: e.metadata,
  }));

const hashChainContract = (open: () => Promise<Harness>) => {
  let h: Harness;
  let chained: EventStore;
  const run = randomUUID().slice(0, 8);
  // The category (before the first dash) is what is chained; the run keeps a shared server's streams apart.
  const wallet = (name: string) => `wallet-ct${run}${name}`;
  const chainOf = (raw: EventStore) =>
    withHashChain(raw, { categories: ['wallet'], readHead: h.readHead, remembered: 4 });

  beforeAll(async () => {
    h = await open();
    chained = chainOf(h.raw);
  });
  afterAll(async () => {
    await h?.teardown();
  });

  it('stamps prevHash and hash in each appended event of a chained stream, and the stored events verify', async () => {
    const s = wallet('a');
    await appendToStream(chained, s, [event(1), event(2)], { expectedRevision: 'no_stream' });
    await chained.readStream(s);
    await appendToStream(chained, s, [event(3)], { expectedRevision: 1 });
    await appendToStream(chained, s, [event(4, { correlationId: 'c-1' })], { expectedRevision: 'any' });
    const stored = await h.raw.readStream(s);
    expect(stored.map((e) => e.streamPosition)).toEqual([0, 1, 2, 3]);
    expect(stored[0].metadata.prevHash).toBeNull();
    for (let i = 1; i < stored.length; i++) expect(stored[i].metadata.prevHash).toBe(stored[i - 1].metadata.hash);
    expect(checkChain(s, chainedView(stored)).problem).toBeNull();
    // Recomputed from the stored record alone (the documented encoding), not from what the wrapper kept.
    expect(stored[3].metadata.hash).toBe(hashOf(chainedView(stored)[3], stored[2].metadata.hash as string));
  });

  it('links each chained stream of a multi-stream append to its own predecessor, in the same append', async () => {
    const [a, b] = [wallet('multi-a'), wallet('multi-b')];
    const plain = `order-${randomUUID()}`;
    await appendToStream(chained, a, [event(1)], { expectedRevision: 'no_stream' });
    await chained.appendToStreams([
      { streamId: a, expectedRevision: 0, events: [event(2), event(3)] },
      { streamId: plain, expectedRevision: 'no_stream', events: [event(4)] },
      { streamId: b, expectedRevision: 'no_stream', events: [event(5)] },
    ]);
    const storedA = await h.raw.readStream(a);
    expect(storedA[1].metadata.prevHash).toBe(storedA[0].metadata.hash);
    expect(checkChain(a, chainedView(storedA)).problem).toBeNull();
    const storedB = await h.raw.readStream(b);
    expect(storedB[0].metadata.prevHash).toBeNull();
    expect(checkChain(b, chainedView(storedB)).problem).toBeNull();
    expect((await h.raw.readStream(plain))[0].metadata.hash).toBeUndefined();
  });

  it('leaves other streams as they were', async () => {
    const s = `order-ct${run}`;
    await appendToStream(chained, s, [event(1)], { expectedRevision: 'no_stream' });
    const [stored] = await h.raw.readStream(s);
    expect(stored.metadata.hash).toBeUndefined();
    expect(stored.metadata.prevHash).toBeUndefined();
  });

  it('chains concurrent appends without an expected revision one after another, never two to one predecessor', async () => {
    const s = wallet('any');
    const writers = [chained, chainOf(h.raw), chainOf(h.raw)];
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        appendToStream(writers[i % writers.length], s, [event(i)], { expectedRevision: 'any' }),
      ),
    );
    const stored = await h.raw.readStream(s);
    expect(stored).toHaveLength(12);
    expect(new Set(stored.map((e) => e.metadata.prevHash)).size).toBe(12);
    expect(checkChain(s, chainedView(stored)).problem).toBeNull();
  });

  it('refuses all but one of concurrent appends at the same revision, from two instances', async () => {
    const s = wallet('exact');
    await appendToStream(chained, s, [event(0)], { expectedRevision: 'no_stream' });
    const other = chainOf(h.raw);
    await Promise.all([chained.readStream(s), other.readStream(s)]);
    const results = await Promise.allSettled([
      appendToStream(chained, s, [event(1)], { expectedRevision: 0 }),
      appendToStream(other, s, [event(2)], { expectedRevision: 0 }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(ConcurrencyError);
    // The loser's memory of the head is stale; its next append reads the head again and chains to it.
    const loser = results[0].status === 'rejected' ? chained : other;
    await appendToStream(loser, s, [event(3)], { expectedRevision: 1 });
    const stored = await h.raw.readStream(s);
    expect(stored).toHaveLength(3);
    expect(checkChain(s, chainedView(stored)).problem).toBeNull();
  });

  it('starts the chain on a stream stored before it: the first chained event commits to the older ones', async () => {
    const s = wallet('legacy');
    await appendToStream(h.raw, s, [event(1), event(2)], { expectedRevision: 'no_stream' });
    await appendToStream(chainOf(h.raw), s, [event(3)], { expectedRevision: 1 });
    const stored = await h.raw.readStream(s);
    const check = checkChain(s, chainedView(stored));
    expect(check.problem).toBeNull();
    expect(stored[2].metadata.prevHash).toBe(check.hashes[1]);
  });
};

for (const backend of backends) {
  describe(`hash chain contract: ${backend.name}`, () => {
    hashChainContract(async () => {
      const { pool, drop } = await backend.open();
      const db = createDb(pool);
      await migrateToLatest(db, eventStoreMigrations, eventStoreFunctions);
      const raw = createPostgresEventStore(pool, { pollMs: 50 });
      return {
        raw,
        readHead: postgresStreamHead(pool),
        async teardown() {
          await raw.close();
          await db.destroy();
          await drop?.();
        },
      };
    });
  });
}

// EventStoreDB keeps the chain in event metadata the same way; no adapter-specific head reader (the wrapper reads
// the stream). Only where a server is given: the event store contract starts a container when Docker is there.
const esdbSkipped = process.env.ESDB_URL ? null : 'no ESDB_URL';
if (esdbSkipped) console.log(`hash chain contract on EventStoreDB skipped: ${esdbSkipped}`);
describe.skipIf(Boolean(esdbSkipped))(
  `hash chain contract: EventStoreDB${esdbSkipped ? ` (skipped: ${esdbSkipped})` : ''}`,
  () => {
    hashChainContract(async () => {
      const raw = await openEsdbEventStore(process.env.ESDB_URL!);
      return { raw, teardown: () => raw.close() };
    });
  },
);
