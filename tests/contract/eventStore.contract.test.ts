import { randomUUID } from 'node:crypto';
import { GenericContainer, getContainerRuntimeClient, Wait, type StartedTestContainer } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../infra/db/database.js';
import { migrateToLatest } from '../../infra/db/migrate.js';
import { createPostgresPool } from '../../infra/db/sqlPool.js';
import { openEsdbEventStore } from '../../infra/eventStore/esdbEventStore.js';
import { eventStoreMigrations } from '../../infra/eventStore/migrations.js';
import { eventStoreFunctions } from '../../infra/eventStore/functions.js';
import { createPostgresEventStore } from '../../infra/eventStore/postgresEventStore.js';
import {
  ConcurrencyError,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  type Subscription,
  appendToStream,
} from '../../infra/eventStore/port.js';

/**
 * $all shows an event once every older writing transaction on the server has finished
 * (docs/decisions/0002-all-reader-visibility.md): on a server that other test files share, a reader may have
 * to wait a moment.
 */
const readAllThrough = async (store: EventStore, from: number, limit: number, through: number) => {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const page = await store.readAll(from, limit);
    if ((page.at(-1)?.globalPosition ?? from) >= through || Date.now() > deadline) return page;
    await store.waitForAppend(25);
  }
};
import { freshDatabaseUrl } from '../support/testService.js';
import { testDatabase } from '../support/testDatabases.js';

interface Harness {
  store: EventStore;
  teardown(): Promise<void>;
}

const event = (type = 'Something', data: unknown = { n: 1 }, metadata?: NewEvent['metadata']): NewEvent => ({
  eventId: randomUUID(),
  type,
  data,
  metadata,
});

const conflictOf = async (p: Promise<unknown>): Promise<ConcurrencyError> => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConcurrencyError);
  return err as ConcurrencyError;
};

/**
 * Consumes a subscription in the background; `waitFor(n)` resolves once n matching events arrived. The
 * timeout only turns a hang into a readable failure, it asserts nothing about speed.
 */
const collect = (sub: Subscription, keep: (e: RecordedEvent) => boolean) => {
  const seen: RecordedEvent[] = [];
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of waiters) w();
    waiters.clear();
  };
  let failure: unknown = null;
  const done = (async () => {
    try {
      for await (const e of sub) {
        if (!keep(e)) continue;
        seen.push(e);
        wake();
      }
    } catch (err) {
      failure = err;
      wake();
    }
  })();
  return {
    seen,
    async waitFor(n: number, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (seen.length < n) {
        if (failure) throw failure;
        if (Date.now() > deadline) throw new Error(`subscription delivered ${seen.length} of ${n} events`);
        await new Promise<void>((resolve) => {
          waiters.add(resolve);
          setTimeout(resolve, 200);
        });
      }
      return seen.slice();
    },
    async stop() {
      await sub.close();
      await done;
    },
  };
};

const expectStrictlyAscending = (events: RecordedEvent[]) => {
  for (let i = 1; i < events.length; i++)
    expect(events[i].globalPosition).toBeGreaterThan(events[i - 1].globalPosition);
};

/** The one contract every EventStore adapter passes. */
const eventStoreContract = (open: () => Promise<Harness>) => {
  let store: EventStore;
  let teardown: () => Promise<void>;
  // Stream names are unique per run, so a shared server (ESDB_URL) holding other events does not matter.
  const run = randomUUID().slice(0, 8);
  const stream = (name: string) => `ct${run}-${name}`;
  const ours = (e: RecordedEvent) => e.streamId.startsWith(`ct${run}-`);

  beforeAll(async () => {
    ({ store, teardown } = await open());
  });
  afterAll(async () => {
    await teardown?.();
  });

  it('appends with no_stream, an exact revision and any', async () => {
    const s = stream('revisions');
    const first = await appendToStream(store, s, [event(), event()], { expectedRevision: 'no_stream' });
    expect(first.nextExpectedRevision).toBe(1);
    const second = await appendToStream(store, s, [event()], { expectedRevision: 1 });
    expect(second.nextExpectedRevision).toBe(2);
    expect(second.position).toBeGreaterThan(first.position);
    const third = await appendToStream(store, s, [event(), event()], { expectedRevision: 'any' });
    expect(third.nextExpectedRevision).toBe(4);
    const fresh = await appendToStream(store, stream('any-new'), [event()], { expectedRevision: 'any' });
    expect(fresh.nextExpectedRevision).toBe(0);

    const stored = await store.readStream(s);
    expect(stored.map((e) => e.streamPosition)).toEqual([0, 1, 2, 3, 4]);
    expect(stored[1].globalPosition).toBe(first.position);
    expect(stored[4].globalPosition).toBe(third.position);
    expect(await store.headPosition()).toBeGreaterThanOrEqual(fresh.position);
  });

  it('refuses a wrong expected revision with a ConcurrencyError and writes nothing', async () => {
    const s = stream('conflict');
    await appendToStream(store, s, [event()], { expectedRevision: 'no_stream' });

    const again = await conflictOf(appendToStream(store, s, [event()], { expectedRevision: 'no_stream' }));
    expect(again).toMatchObject({ streamId: s, expected: 'no_stream', actual: 0 });
    const stale = await conflictOf(appendToStream(store, s, [event()], { expectedRevision: 3 }));
    expect(stale).toMatchObject({ streamId: s, expected: 3, actual: 0 });
    const missing = await conflictOf(appendToStream(store, stream('missing'), [event()], { expectedRevision: 0 }));
    expect(missing).toMatchObject({ expected: 0, actual: null });

    expect(await store.readStream(s)).toHaveLength(1);
    expect(await store.readStream(stream('missing'))).toEqual([]);
  });

  it('is idempotent by event id: the same batch twice is stored once and answers the same', async () => {
    const cases: { name: string; before: NewEvent[]; expected: ExpectedRevision }[] = [
      { name: 'idem-new', before: [], expected: 'no_stream' },
      { name: 'idem-exact', before: [event()], expected: 0 },
      { name: 'idem-any', before: [event()], expected: 'any' },
    ];
    for (const c of cases) {
      const s = stream(c.name);
      if (c.before.length) await appendToStream(store, s, c.before, { expectedRevision: 'no_stream' });
      const batch = [event('A'), event('B')];
      const once = await appendToStream(store, s, batch, { expectedRevision: c.expected });
      const twice = await appendToStream(store, s, batch, { expectedRevision: c.expected });
      expect(twice, c.name).toEqual(once);
      const stored = await store.readStream(s);
      expect(
        stored.map((e) => e.eventId),
        c.name,
      ).toEqual([...c.before, ...batch].map((e) => e.eventId));
    }
  });

  it('treats a batch redelivered after the stream moved on as already stored', async () => {
    const s = stream('idem-later');
    const batch = [event()];
    const once = await appendToStream(store, s, batch, { expectedRevision: 'no_stream' });
    await appendToStream(store, s, [event()], { expectedRevision: 0 });
    expect(await appendToStream(store, s, batch, { expectedRevision: 'no_stream' })).toEqual(once);
    expect(await store.readStream(s)).toHaveLength(2);
  });

  it('treats events already stored, sent again at the current revision of their stream beside a new stream, as already stored', async () => {
    // An effect whose id follows from its cause, decided again by a later command on the same state: the
    // stream's head is where the command read it, so only the ids tell that nothing is new.
    const s = stream('idem-head');
    const fresh = stream('idem-head-fresh');
    const effect = [event('Returned')];
    const once = await appendToStream(store, s, effect, { expectedRevision: 'no_stream' });
    const next = [event('Attempted')];
    const both = await store.appendToStreams([
      { streamId: fresh, expectedRevision: 'no_stream', events: next },
      { streamId: s, expectedRevision: 0, events: effect },
    ]);
    expect(both.streams[1]).toEqual({ streamId: s, ...once });
    expect((await store.readStream(s)).map((e) => e.eventId)).toEqual(effect.map((e) => e.eventId));
    expect((await store.readStream(fresh)).map((e) => e.eventId)).toEqual(next.map((e) => e.eventId));
  });

  it('reads a stream in order with every field', async () => {
    const s = stream('read');
    const batch = [event('Opened', { i: 0 }), event('Changed', { i: 1 }), event('Closed', { i: 2 })];
    await appendToStream(store, s, batch.slice(0, 1), { expectedRevision: 'no_stream' });
    await appendToStream(store, s, batch.slice(1), { expectedRevision: 0 });
    const stored = await store.readStream(s);
    expect(stored.map((e) => [e.eventId, e.type, e.data, e.streamId, e.streamPosition])).toEqual(
      batch.map((e, i) => [e.eventId, e.type, e.data, s, i]),
    );
    expectStrictlyAscending(stored);
  });

  it('reads a stream from a revision: that event and every one after it, nothing before', async () => {
    const s = stream('read-from');
    const batch = [event('Opened'), event('Changed'), event('Changed'), event('Closed')];
    await appendToStream(store, s, batch, { expectedRevision: 'no_stream' });
    const tail = await store.readStream(s, { from: 2 });
    expect(tail.map((e) => [e.eventId, e.streamPosition])).toEqual([
      [batch[2].eventId, 2],
      [batch[3].eventId, 3],
    ]);
    expect((await store.readStream(s, { from: 0 })).map((e) => e.eventId)).toEqual(batch.map((e) => e.eventId));
    expect(await store.readStream(s, { from: 4 })).toEqual([]);
    expect(await store.readStream(stream('read-from-missing'), { from: 1 })).toEqual([]);
  });

  it('reads $all in global order from a position, with a limit', async () => {
    const head = await store.headPosition();
    const streams = [stream('all-a'), stream('all-b'), stream('all-c')];
    const appended: NewEvent[] = [];
    let last = head;
    for (let i = 0; i < 12; i++) {
      const e = event('Tick', { i });
      appended.push(e);
      last = (await appendToStream(store, streams[i % 3], [e], { expectedRevision: 'any' })).position;
    }
    const all = await readAllThrough(store, head, 1000, last);
    expectStrictlyAscending(all);
    expect(all.every((e) => e.globalPosition > head)).toBe(true);
    expect(all.filter(ours).map((e) => e.eventId)).toEqual(appended.map((e) => e.eventId));
    expect(await store.headPosition()).toBe(all[all.length - 1].globalPosition);

    const firstPage = await store.readAll(head, 5);
    expect(firstPage).toEqual(all.slice(0, 5));
    const rest = await store.readAll(firstPage[4].globalPosition, 1000);
    expect(rest).toEqual(all.slice(5));
    expect(await store.readAll(all[all.length - 1].globalPosition, 10)).toEqual([]);
  });

  it('subscribes to $all: catch-up from a position, then live, in order', async () => {
    const s = stream('sub');
    const before = await appendToStream(store, s, [event('Before')], { expectedRevision: 'no_stream' });
    const caughtUp = [event('C1'), event('C2'), event('C3')];
    await appendToStream(store, s, caughtUp.slice(0, 2), { expectedRevision: 0 });
    await appendToStream(store, s, caughtUp.slice(2), { expectedRevision: 2 });

    const sub = collect(store.subscribeToAll(before.position), ours);
    try {
      expect((await sub.waitFor(3)).map((e) => e.eventId)).toEqual(caughtUp.map((e) => e.eventId));
      const live = [event('L1'), event('L2')];
      await appendToStream(store, s, live, { expectedRevision: 3 });
      const got = await sub.waitFor(5);
      expect(got.map((e) => e.eventId)).toEqual([...caughtUp, ...live].map((e) => e.eventId));
      expectStrictlyAscending(got);
    } finally {
      await sub.stop();
    }
  });

  it('round-trips data, metadata and recordedAt', async () => {
    const s = stream('roundtrip');
    const metadata = {
      correlationId: randomUUID(),
      causationId: randomUUID(),
      actor: { id: 42, role: 'CLIENT' },
      extra: { list: [1, 'two', null] },
    };
    const data = {
      text: 'eau potable, 1 000 L — ✓',
      cents: 123_456,
      flag: false,
      nested: { at: '2024-05-01T10:00:00.000Z', none: null },
    };
    const withMeta = event('Rich', data, metadata);
    const bare = event('Bare', { n: 2 });
    // Positions are compared, never computed (EventStoreDB's are not dense): read from a real one.
    const marker = await appendToStream(store, s, [event('Marker')], { expectedRevision: 'no_stream' });
    const before = Date.now();
    await appendToStream(store, s, [withMeta, bare], { expectedRevision: 0 });
    const after = Date.now();

    const [, fromStream, bareFromStream] = await store.readStream(s);
    expect(fromStream.data).toEqual(data);
    expect(fromStream.metadata).toEqual(metadata);
    expect(bareFromStream.metadata).toEqual({});
    expect(fromStream.recordedAt).toBeInstanceOf(Date);
    // The server's clock stamps recordedAt: a minute's slack covers clock skew with a container.
    expect(fromStream.recordedAt.getTime()).toBeGreaterThan(before - 60_000);
    expect(fromStream.recordedAt.getTime()).toBeLessThan(after + 60_000);

    const fromAll = (await readAllThrough(store, marker.position, 1000, await store.headPosition())).find(
      (e) => e.eventId === withMeta.eventId,
    );
    expect(fromAll).toEqual(fromStream);
    const sub = collect(store.subscribeToAll(marker.position), (e) => e.streamId === s);
    try {
      expect((await sub.waitFor(2))[0]).toEqual(fromStream);
    } finally {
      await sub.stop();
    }
  });

  describe('appends several streams at once', () => {
    it('stores every stream of the batch, each at its revision, and answers each', async () => {
      const [a, b] = [stream('multi-a'), stream('multi-b')];
      await appendToStream(store, a, [event()], { expectedRevision: 'no_stream' });
      const batch = { a: [event('A1'), event('A2')], b: [event('B1')] };
      const r = await store.appendToStreams([
        { streamId: a, expectedRevision: 0, events: batch.a },
        { streamId: b, expectedRevision: 'no_stream', events: batch.b },
      ]);
      expect(r.streams.map((x) => [x.streamId, x.nextExpectedRevision])).toEqual([
        [a, 2],
        [b, 0],
      ]);
      const storedA = await store.readStream(a);
      const storedB = await store.readStream(b);
      expect(storedA.slice(1).map((e) => e.eventId)).toEqual(batch.a.map((e) => e.eventId));
      expect(storedB.map((e) => e.eventId)).toEqual(batch.b.map((e) => e.eventId));
      expect(r.position).toBe(Math.max(storedA[2].globalPosition, storedB[0].globalPosition));
      expect(r.streams[0].position).toBe(storedA[2].globalPosition);
    });

    it('stores nothing when one stream is stale, and the ConcurrencyError names that stream', async () => {
      const [fresh, stale] = [stream('multi-fresh'), stream('multi-stale')];
      await appendToStream(store, stale, [event(), event()], { expectedRevision: 'no_stream' });
      const err = await conflictOf(
        store.appendToStreams([
          { streamId: fresh, expectedRevision: 'no_stream', events: [event()] },
          { streamId: stale, expectedRevision: 0, events: [event()] },
        ]),
      );
      expect(err).toMatchObject({ streamId: stale, expected: 0 });
      expect(await store.readStream(fresh)).toEqual([]);
      expect(await store.readStream(stale)).toHaveLength(2);
    });

    it('is idempotent by event id: the same batch twice is stored once and answers the same', async () => {
      const [a, b] = [stream('multi-idem-a'), stream('multi-idem-b')];
      const appends = [
        { streamId: a, expectedRevision: 'no_stream' as const, events: [event()] },
        { streamId: b, expectedRevision: 'no_stream' as const, events: [event(), event()] },
      ];
      const once = await store.appendToStreams(appends);
      const twice = await store.appendToStreams(appends);
      expect(twice).toEqual(once);
      expect(await store.readStream(b)).toHaveLength(2);
    });

    it('stores a batch delivered twice at once (two webhook deliveries) once, and answers both with it', async () => {
      const [a, b] = [stream('multi-twin-a'), stream('multi-twin-b')];
      await appendToStream(store, b, [event()], { expectedRevision: 'no_stream' });
      const appends = [
        { streamId: a, expectedRevision: 'no_stream' as const, events: [event()] },
        { streamId: b, expectedRevision: 0, events: [event(), event()] },
      ];
      const twins = await Promise.all(Array.from({ length: 4 }, () => store.appendToStreams(appends)));
      for (const t of twins) expect(t).toEqual(twins[0]);
      expect(await store.readStream(a)).toHaveLength(1);
      expect(await store.readStream(b)).toHaveLength(3);
    });

    it('serialises concurrent batches over an overlapping stream: one wins, the others store nothing', async () => {
      const shared = stream('multi-shared');
      await appendToStream(store, shared, [event()], { expectedRevision: 'no_stream' });
      const own = Array.from({ length: 8 }, (_, i) => stream(`multi-own-${i}`));
      const results = await Promise.allSettled(
        own.map((o) =>
          store.appendToStreams([
            { streamId: o, expectedRevision: 'no_stream', events: [event('Own')] },
            { streamId: shared, expectedRevision: 0, events: [event('Shared')] },
          ]),
        ),
      );
      const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
      expect(won).toHaveLength(1);
      for (const r of results)
        if (r.status === 'rejected') expect(r.reason).toMatchObject({ streamId: shared, expected: 0 });
      expect(await store.readStream(shared)).toHaveLength(2);
      for (const [i, o] of own.entries()) expect(await store.readStream(o)).toHaveLength(i === won[0] ? 1 : 0);
    });

    it('never shows a reader half a batch: the events of each batch arrive together on $all', async () => {
      const head = await store.headPosition();
      const tag = stream('multi-whole');
      const sub = collect(store.subscribeToAll(head), (e) => e.streamId.startsWith(tag));
      const batches = 24;
      try {
        await Promise.all(
          Array.from({ length: batches }, (_, i) =>
            store.appendToStreams([
              { streamId: `${tag}-x${i}`, expectedRevision: 'no_stream', events: [event('X', { i })] },
              {
                streamId: `${tag}-y${i}`,
                expectedRevision: 'no_stream',
                events: [event('Y', { i }), event('Y', { i })],
              },
            ]),
          ),
        );
        const got = await sub.waitFor(batches * 3);
        const order = got.map((e) => (e.data as { i: number }).i);
        for (let k = 0; k < order.length; k += 3) expect(new Set(order.slice(k, k + 3)).size).toBe(1);
      } finally {
        await sub.stop();
      }
    });
  });

  it('race: 8 concurrent appenders, thousands of events, a subscriber sees each exactly once in order', async () => {
    const writers = 8;
    const perWriter = 400;
    const total = writers * perWriter;
    const shared = [stream('race-shared-0'), stream('race-shared-1')];
    const hot = stream('race-hot');
    const head = await store.headPosition();
    const sub = collect(store.subscribeToAll(head), ours);
    const appended = new Set<string>();
    let conflicts = 0;
    let hotRevision: ExpectedRevision = 'no_stream';

    const appendExactToHot = async (e: NewEvent) => {
      for (;;) {
        const expected = hotRevision;
        try {
          const r = await appendToStream(store, hot, [e], { expectedRevision: expected });
          hotRevision = Math.max(r.nextExpectedRevision, typeof hotRevision === 'number' ? hotRevision : -1);
          return;
        } catch (err) {
          if (!(err instanceof ConcurrencyError)) throw err;
          conflicts++;
          const current = err.actual ?? (await store.readStream(hot)).at(-1)?.streamPosition;
          if (current !== undefined && (typeof hotRevision !== 'number' || current > hotRevision))
            hotRevision = current;
        }
      }
    };

    const writer = async (w: number) => {
      const own = stream(`race-w${w}`);
      let ownRevision: ExpectedRevision = 'no_stream';
      for (let i = 0; i < perWriter; i++) {
        const e = event('Raced', { w, i });
        appended.add(e.eventId);
        if (i % 4 === 1) await appendToStream(store, shared[i % 8 === 1 ? 0 : 1], [e], { expectedRevision: 'any' });
        else if (i % 8 === 3) await appendExactToHot(e);
        else
          ownRevision = (await appendToStream(store, own, [e], { expectedRevision: ownRevision })).nextExpectedRevision;
      }
    };

    try {
      await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
      const got = await sub.waitFor(total, 120_000);
      expect(got).toHaveLength(total);
      expect(new Set(got.map((e) => e.eventId)).size).toBe(total);
      expect(got.every((e) => appended.has(e.eventId))).toBe(true);
      expectStrictlyAscending(got);

      // Nothing arrives twice later: a sentinel appended now is the very next event the subscriber sees.
      const sentinel = event('Sentinel');
      await appendToStream(store, stream('race-sentinel'), [sentinel], { expectedRevision: 'no_stream' });
      const withSentinel = await sub.waitFor(total + 1);
      expect(withSentinel).toHaveLength(total + 1);
      expect(withSentinel[total].eventId).toBe(sentinel.eventId);

      // A reader of $all after the race sees the very sequence the live subscriber saw.
      const all = (await store.readAll(head, total * 2)).filter(ours);
      expect(all.map((e) => e.eventId)).toEqual(withSentinel.map((e) => e.eventId));
      for (const s of [...shared, hot, ...Array.from({ length: writers }, (_, w) => stream(`race-w${w}`))]) {
        const events = await store.readStream(s);
        expect(events.map((e) => e.streamPosition)).toEqual(events.map((_, i) => i));
      }
      // The exact-revision appends to one hot stream did contend.
      expect(conflicts).toBeGreaterThan(0);
    } finally {
      await sub.stop();
    }
  }, 240_000);
};

describe('EventStore contract: embedded PostgreSQL', () => {
  eventStoreContract(async () => {
    const pool = await testDatabase('empty');
    const db = createDb(pool);
    await migrateToLatest(db, eventStoreMigrations, eventStoreFunctions);
    const store = createPostgresEventStore(pool, { pollMs: 50 });
    return {
      store,
      async teardown() {
        await store.close();
        await db.destroy();
      },
    };
  });
});

describe.skipIf(!process.env.DATABASE_URL)('EventStore contract: PostgreSQL', () => {
  eventStoreContract(async () => {
    const fresh = await freshDatabaseUrl();
    // Eight appenders each hold a connection while the subscriber polls on another.
    const pool = createPostgresPool(fresh.url, 16);
    const db = createDb(pool);
    await migrateToLatest(db, eventStoreMigrations, eventStoreFunctions);
    const store = createPostgresEventStore(pool, { pollMs: 50 });
    return {
      store,
      async teardown() {
        await store.close();
        await db.destroy();
        await fresh.drop();
      },
    };
  });
});

/** Where an EventStoreDB comes from: ESDB_URL, or a container when testcontainers finds a Docker engine. */
const esdbSource = async (): Promise<{ url?: string; container?: boolean; skipped?: string }> => {
  if (process.env.ESDB_URL) return { url: process.env.ESDB_URL };
  const runtime = await Promise.race([
    getContainerRuntimeClient().then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000).unref()),
  ]);
  return runtime ? { container: true } : { skipped: 'no ESDB_URL and no Docker engine' };
};

const esdb = await esdbSource();
if (esdb.skipped) console.log(`EventStoreDB contract skipped: ${esdb.skipped}`);

describe.skipIf(Boolean(esdb.skipped))(
  `EventStore contract: EventStoreDB${esdb.skipped ? ` (skipped: ${esdb.skipped})` : ''}`,
  () => {
    eventStoreContract(async () => {
      let container: StartedTestContainer | undefined;
      let url = esdb.url;
      if (esdb.container) {
        // The multi-stream append is atomic from KurrentDB 25.1 on (an older server is refused at open).
        container = await new GenericContainer('kurrentplatform/kurrentdb:25.1')
          .withEnvironment({
            KURRENTDB_INSECURE: 'true',
            KURRENTDB_MEM_DB: 'true',
            KURRENTDB_RUN_PROJECTIONS: 'None',
          })
          .withExposedPorts(2113)
          .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCodeMatching((s) => s >= 200 && s < 300))
          .start();
        url = `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;
      }
      const store = await openEsdbEventStore(url!);
      return {
        store,
        async teardown() {
          await store.close();
          await container?.stop();
        },
      };
    });
  },
);

/**
 * The visibility rule of the PostgreSQL adapter (docs/decisions/0002-all-reader-visibility.md):
 * only an append still in flight holds readers back, never another open transaction.
 */
describe.skipIf(!process.env.DATABASE_URL)('EventStore on PostgreSQL: what $all shows', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabaseUrl>>;
  let pool: ReturnType<typeof createPostgresPool>;
  let db: ReturnType<typeof createDb>;
  const inlined: string[] = [];
  let store: EventStore;
  beforeAll(async () => {
    fresh = await freshDatabaseUrl();
    pool = createPostgresPool(fresh.url, 8);
    db = createDb(pool);
    await migrateToLatest(db, eventStoreMigrations, eventStoreFunctions);
    await pool.query('CREATE TABLE scratch (x int)');
    store = createPostgresEventStore(pool, {
      pollMs: 20,
      inline: {
        handles: (type) => type.startsWith('Inline'),
        async apply(client, events) {
          if (events.some((e) => e.type === 'InlineFails')) throw new Error('inline read model refused');
          await client.query('INSERT INTO scratch (x) VALUES ($1)', [events[0].globalPosition]);
          return () => inlined.push(...events.map((e) => e.eventId));
        },
      },
    });
  });
  afterAll(async () => {
    await store?.close();
    await db?.destroy();
    await fresh?.drop();
  });

  it('a transaction that writes but appends nothing (a projector batch) hides nothing', async () => {
    const other = await pool.connect();
    try {
      await other.query('BEGIN');
      await other.query('INSERT INTO scratch (x) VALUES (0)');
      const before = await store.headPosition();
      const e = event();
      await appendToStream(store, `vis-${randomUUID()}`, [e], { expectedRevision: 'no_stream' });
      expect((await store.readAll(before, 10)).map((r) => r.eventId)).toEqual([e.eventId]);
    } finally {
      await other.query('ROLLBACK');
      other.release();
    }
  });

  it('an append in flight hides the appends after it until it commits; then both show, in order', async () => {
    const before = await store.headPosition();
    const first = event();
    const other = await pool.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT * FROM es_append_streams($1::jsonb)', [
        JSON.stringify([{ stream: `vis-${randomUUID()}`, expected: -1, events: [{ ...first, metadata: {} }] }]),
      ]);
      const second = event();
      await appendToStream(store, `vis-${randomUUID()}`, [second], { expectedRevision: 'no_stream' });
      expect(await store.readAll(before, 10)).toEqual([]);
      await other.query('COMMIT');
      expect((await store.readAll(before, 10)).map((r) => r.eventId)).toEqual([first.eventId, second.eventId]);
    } finally {
      other.release();
    }
  });

  it('writes the rows sent alongside in the append’s transaction: a failing one takes the events back', async () => {
    const s = `vis-${randomUUID()}`;
    const marker = 1 + Math.floor(Math.random() * 2_000_000_000);
    const refusal = new Error('rate refused');
    await expect(
      store.appendToStreams([{ streamId: s, expectedRevision: 'no_stream', events: [event()] }], {
        alongside: [
          async (client) => void (await client.query('INSERT INTO scratch (x) VALUES ($1)', [marker])),
          () => Promise.reject(refusal),
        ],
      }),
    ).rejects.toBe(refusal);
    expect(await store.readStream(s)).toEqual([]);
    expect((await pool.query('SELECT x FROM scratch WHERE x = $1', [marker])).rows).toEqual([]);
    await store.appendToStreams([{ streamId: s, expectedRevision: 'no_stream', events: [event()] }], {
      alongside: [async (client) => void (await client.query('INSERT INTO scratch (x) VALUES ($1)', [marker]))],
    });
    expect(await store.readStream(s)).toHaveLength(1);
    expect((await pool.query('SELECT x FROM scratch WHERE x = $1', [marker])).rows).toEqual([{ x: marker }]);
  });

  it(
    'applies inline read models in the append’s transaction: ' +
      'a refusal appends nothing, a commit runs what follows it',
    async () => {
      const s = `vis-${randomUUID()}`;
      await expect(appendToStream(store, s, [event('InlineFails')], { expectedRevision: 'no_stream' })).rejects.toThrow(
        'inline read model refused',
      );
      expect(await store.readStream(s)).toEqual([]);
      const ok = event('InlineApplied');
      const { position } = await appendToStream(store, s, [ok], { expectedRevision: 'no_stream' });
      expect((await pool.query('SELECT x FROM scratch WHERE x = $1', [position])).rows).toEqual([{ x: position }]);
      expect(inlined).toEqual([ok.eventId]);
      // A redelivery appends nothing and projects nothing again.
      await appendToStream(store, s, [ok], { expectedRevision: 'no_stream' });
      expect((await pool.query('SELECT x FROM scratch WHERE x = $1', [position])).rows).toHaveLength(1);
      expect(inlined).toEqual([ok.eventId]);
    },
  );
});
