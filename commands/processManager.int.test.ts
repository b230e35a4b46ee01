import { appendToStream } from '../infra/eventStore/port.js';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { conflict } from '../domain/errors.js';
import { createDb } from '../infra/db/database.js';
import { migrateToLatest } from '../infra/db/migrate.js';
import { eventStoreMigrations } from '../infra/eventStore/migrations.js';
import { eventStoreFunctions } from '../infra/eventStore/functions.js';
import type { EventStore } from '../infra/eventStore/port.js';
import { createPostgresEventStore } from '../infra/eventStore/postgresEventStore.js';
import { createLogger } from '../infra/logger.js';
import { ManualClock } from '../infra/clock.js';
import { createHandle, StreamBusy } from './handle.js';
import { processManager, send, type ReactionContext } from './processManager.js';
import { processManagerMigrations } from '../stores/processManager/checkpoints.js';
import type { SqlPool } from '../infra/db/sqlPool.js';
import { backends } from '../tests/support/backends.js';

/**
 * The process manager mechanism against every database the service runs on, through a process of this
 * file's own: each `Asked` event on one of the test's `ask-` streams is answered by one `Answered` event
 * whose id derives from the question's. Tests share a database; each has its own process and streams. A
 * question's `outcome` says how its reaction goes: answered, refused (the answer's decider throws a
 * DomainError), crashing (reading its state fails) or finding its stream busy (StreamBusy) the first time
 * it is reacted to; a question to `thank` for is answered, and its answer is thanked on a `thanks-` stream.
 */
type Outcome = 'answer' | 'refuse' | 'crash-once' | 'busy-once' | 'thank';
type Question = { n: number; outcome: Outcome };

const answerDecider = {
  initialState: null,
  evolve: () => null,
  decide: ({ n, outcome }: Question) => {
    if (outcome === 'refuse') throw conflict('Conflict', `question ${n} is refused`);
    return [{ type: 'Answered', data: { n, thank: outcome === 'thank' } }];
  },
};

const thanksDecider = {
  initialState: null,
  evolve: () => null,
  decide: ({ n }: { n: number }) => [{ type: 'Thanked', data: { n } }],
};

describe.each(backends)('process manager on $name', (backend) => {
  let ctx: ReactionContext;
  let store: EventStore;
  let pool: SqlPool;
  let close: () => Promise<void>;
  let reactedTo: number[];
  let crashed: Set<string>;
  let name: string;

  const processUnderTest = () =>
    processManager<ReactionContext, null>({
      name,
      reactsTo: (e) =>
        (e.streamId.startsWith(`ask-${name}-`) && e.type === 'Asked') ||
        (e.streamId.startsWith(`answer-${name}-`) && e.type === 'Answered' && (e.data as { thank: boolean }).thank),
      async stateOf(_streams, e) {
        if (e.type === 'Answered') return null;
        const { n, outcome } = e.data as Question;
        reactedTo.push(n);
        if (outcome === 'crash-once' && !crashed.has(e.eventId)) {
          crashed.add(e.eventId);
          throw new Error(`reaction to question ${n} crashes`);
        }
        if (outcome === 'busy-once' && !crashed.has(e.eventId)) {
          crashed.add(e.eventId);
          throw new StreamBusy(`answer-${name}-${n}`);
        }
        return null;
      },
      decide: (e) => {
        if (e.type === 'Answered') {
          const { n } = e.data as { n: number };
          return [send(thanksDecider, `thanks-${name}-${n}`, { n }, 'thanks')];
        }
        const question = e.data as Question;
        return [send(answerDecider, `answer-${name}-${question.n}`, question, 'answer')];
      },
    });

  /** On PostgreSQL the log shows an event once no older transaction of the server is still open. */
  const untilLogShows = async (position: number) => {
    while ((await store.readAll(position - 1, 1)).length === 0) await store.waitForAppend(20);
  };

  const ask = async (...questions: [number, Outcome][]) => {
    const events = questions.map(([n, outcome]) => ({ eventId: randomUUID(), type: 'Asked', data: { n, outcome } }));
    const stream = `ask-${name}-${randomUUID()}`;
    // An event the process does not react to sits among the ones it does.
    const { position } = await appendToStream(
      store,
      stream,
      [...events, { eventId: randomUUID(), type: 'Noted', data: {} }],
      { expectedRevision: 'any' },
    );
    await untilLogShows(position);
    return (await store.readStream(stream)).filter((e) => e.type === 'Asked');
  };

  const written = async (prefix: string) => {
    await untilLogShows(await store.headPosition());
    const all = await store.readAll(0, 10_000);
    return all.filter((e) => e.streamId.startsWith(`${prefix}-${name}-`)).map((e) => (e.data as { n: number }).n);
  };
  const answered = () => written('answer');

  const checkpoint = async () => {
    const row = await ctx.db
      .selectFrom('process_manager_checkpoints')
      .select('position')
      .where('name', '=', name)
      .executeTakeFirst();
    return row ? Number(row.position) : 0;
  };

  const now = new Date('2030-01-01T00:00:00Z');

  beforeAll(async () => {
    const opened = await backend.open();
    pool = opened.pool;
    const { drop } = opened;
    const db = createDb(pool);
    await migrateToLatest(db, { ...eventStoreMigrations, ...processManagerMigrations }, eventStoreFunctions);
    store = createPostgresEventStore(pool, { pollMs: 20 });
    ctx = {
      db,
      store,
      logger: createLogger('silent'),
      settle: async () => {},
      handle: createHandle(store),
      clock: new ManualClock('2030-01-01T00:00:00Z'),
    };
    close = async () => {
      await store.close();
      await db.destroy();
      await drop?.();
    };
  });

  afterAll(async () => {
    await close();
  });

  beforeEach(() => {
    name = `test-${randomUUID()}`;
    reactedTo = [];
    crashed = new Set();
    vi.restoreAllMocks();
  });

  it('catches up from its checkpoint, and a run with nothing new appends nothing', async () => {
    const job = processUnderTest().catchUpJob(ctx, { everyMs: 1000 });
    const asked = await ask([1, 'answer'], [2, 'answer']);
    await job.run(now);
    expect(await answered()).toEqual([1, 2]);
    expect(await checkpoint()).toBeGreaterThan(asked[1].globalPosition);

    await ask([3, 'answer']);
    await job.run(now);
    expect(reactedTo).toEqual([1, 2, 3]);
    expect(await answered()).toEqual([1, 2, 3]);

    const head = await store.headPosition();
    await job.run(now);
    expect(reactedTo).toEqual([1, 2, 3]);
    expect(await store.headPosition()).toBe(head);
  });

  it('after the inline half, the catch-up does not react again and appends nothing new', async () => {
    const pm = processUnderTest();
    const asked = await ask([1, 'answer'], [2, 'answer']);
    expect(await pm.inline(ctx, asked)).toBeGreaterThan(asked[1].globalPosition);
    const head = await store.headPosition();

    await pm.catchUpJob(ctx, { everyMs: 1000 }).run(now);
    expect(reactedTo).toEqual([1, 2]);
    expect(await answered()).toEqual([1, 2]);
    expect(await store.headPosition()).toBe(head);
  });

  it('another process (a fresh instance) that saw no inline half reacts again and appends nothing new', async () => {
    const asked = await ask([1, 'answer'], [2, 'answer']);
    await processUnderTest().inline(ctx, asked);
    const head = await store.headPosition();

    await processUnderTest().catchUpJob(ctx, { everyMs: 1000 }).run(now);
    expect(reactedTo).toEqual([1, 2, 1, 2]);
    expect(await answered()).toEqual([1, 2]);
    expect(await store.headPosition()).toBe(head);
  });

  it('a refusal is logged and skipped, inline and in the catch-up, and the checkpoint moves past it', async () => {
    const error = vi.spyOn(ctx.logger, 'error');
    const pm = processUnderTest();
    const asked = await ask([1, 'answer'], [2, 'refuse'], [3, 'answer']);
    await pm.inline(ctx, asked);
    expect(error).toHaveBeenCalledTimes(1);

    await pm.catchUpJob(ctx, { everyMs: 1000 }).run(now);
    expect(error).toHaveBeenCalledTimes(2);
    expect(error.mock.calls[1][0]).toMatchObject({ process: name, type: 'Asked', event: asked[1].globalPosition });
    expect(await answered()).toEqual([1, 3]);
    expect(await checkpoint()).toBeGreaterThan(asked[2].globalPosition);
  });

  it('any other error stops the run at its event, and the next run retries from that event', async () => {
    const job = processUnderTest().catchUpJob(ctx, { everyMs: 1000 });
    const asked = await ask([1, 'answer'], [2, 'crash-once'], [3, 'answer']);
    await expect(job.run(now)).rejects.toThrow('reaction to question 2 crashes');
    expect(await answered()).toEqual([1]);
    expect(await checkpoint()).toBe(asked[0].globalPosition);

    await job.run(now);
    expect(reactedTo).toEqual([1, 2, 2, 3]);
    expect(await answered()).toEqual([1, 2, 3]);
    expect(await checkpoint()).toBeGreaterThan(asked[2].globalPosition);
  });

  it('a stream that stays busy is no refusal: inline it fails the reaction (its command takes it back), and the catch-up answers it', async () => {
    const error = vi.spyOn(ctx.logger, 'error');
    const pm = processUnderTest();
    const asked = await ask([1, 'busy-once'], [2, 'answer']);
    await expect(pm.inline(ctx, asked)).rejects.toBeInstanceOf(StreamBusy);
    expect(await answered()).toEqual([]);
    await pm.catchUpJob(ctx, { everyMs: 1000 }).run(now);
    expect(await answered()).toEqual([1, 2]);
    expect(error).not.toHaveBeenCalled();
  });

  it('in the catch-up, a busy stream stops the run at its event, and the next run retries it', async () => {
    const job = processUnderTest().catchUpJob(ctx, { everyMs: 1000 });
    const asked = await ask([1, 'answer'], [2, 'busy-once'], [3, 'answer']);
    await expect(job.run(now)).rejects.toBeInstanceOf(StreamBusy);
    expect(await checkpoint()).toBe(asked[0].globalPosition);
    await job.run(now);
    expect(await answered()).toEqual([1, 2, 3]);
  });

  it('overlapping runs share one pass over the log', async () => {
    const job = processUnderTest().catchUpJob(ctx, { everyMs: 1000 });
    await ask([1, 'answer'], [2, 'answer'], [3, 'answer']);
    await Promise.all([job.run(now), job.run(now), job.run(now)]);
    expect(reactedTo).toEqual([1, 2, 3]);
    expect(await answered()).toEqual([1, 2, 3]);
  });

  it('a run follows up its own commands, also while the log does not show them yet', async () => {
    const job = processUnderTest().catchUpJob(ctx, { everyMs: 1000 });
    await ask([1, 'thank'], [2, 'answer']);
    // On PostgreSQL the log hides what is appended after an open transaction began, until that one ends.
    const older = pool.kind === 'postgres' ? await pool.connect() : null;
    try {
      await older?.query('BEGIN');
      await older?.query('SELECT pg_current_xact_id()');
      await job.run(now);
    } finally {
      await older?.query('COMMIT');
      older?.release();
    }
    expect(await written('thanks')).toEqual([1]);

    // Met in the log by the next run, the answer is not thanked twice.
    await job.run(now);
    expect(await written('thanks')).toEqual([1]);
    expect(await answered()).toEqual([1, 2]);
  });

  it('trailing the head, a run reacts only up to the head the previous run saw', async () => {
    const job = processUnderTest().catchUpJob(ctx, { everyMs: 1000, trailHead: true });
    await ask([1, 'answer']);
    await job.run(now);
    expect(reactedTo).toEqual([]);

    await ask([2, 'answer']);
    await job.run(now);
    expect(reactedTo).toEqual([1]);

    await job.run(now);
    expect(reactedTo).toEqual([1, 2]);
    expect(await answered()).toEqual([1, 2]);
  });
});
