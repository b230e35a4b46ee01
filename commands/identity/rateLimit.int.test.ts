import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDb } from '../../infra/db/database.js';
import { DatabaseUnavailable } from '../../infra/db/databaseUnavailable.js';
import { migrateToLatest } from '../../infra/db/migrate.js';
import type { SqlPool } from '../../infra/db/sqlPool.js';
import { identityMigrations } from '../../stores/identity/identityTables.js';
import { purgeExpiredRateLimits, rateLimit } from './rateLimit.js';
import { backends } from '../../tests/support/backends.js';

const MINUTE = 60_000;

describe.each(backends)('rate limits on $name', (backend) => {
  let pool: SqlPool;
  let drop: (() => Promise<void>) | undefined;
  let n = 0;
  // A fresh limit name per test: each starts with no hits.
  const limit = (points: number, windowMs: number) => rateLimit(pool, `test-${++n}`, points, windowMs);

  beforeAll(async () => {
    ({ pool, drop } = await backend.open());
    await migrateToLatest(createDb(pool), identityMigrations);
  });
  afterAll(async () => {
    await pool?.end();
    await drop?.();
  });
  // The library reads Date.now(): only Date is faked, so time stands still unless a test moves it.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-01T12:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  it(
    'allows the budget per key, then refuses with the seconds ' +
      'left in the window; other keys and limits are unaffected',
    async () => {
      const l = limit(3, 10 * MINUTE);
      for (let i = 0; i < 3; i++) expect(await l.hit('a')).toEqual({ allowed: true, retryAfterSeconds: 0 });
      vi.advanceTimersByTime(4 * MINUTE);
      expect(await l.hit('a')).toEqual({ allowed: false, retryAfterSeconds: 6 * 60 });
      expect((await l.hit('b')).allowed).toBe(true);
      expect((await limit(3, 10 * MINUTE).hit('a')).allowed).toBe(true);
    },
  );

  it('the window opens at the first hit and reopens when it has passed; refusals do not extend it', async () => {
    const l = limit(2, MINUTE);
    await l.hit('k');
    vi.advanceTimersByTime(30_000);
    await l.hit('k');
    expect(await l.hit('k')).toEqual({ allowed: false, retryAfterSeconds: 30 });
    vi.advanceTimersByTime(29_000);
    expect(await l.hit('k')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    vi.advanceTimersByTime(1000);
    expect(await l.hit('k')).toEqual({ allowed: true, retryAfterSeconds: 0 });
    expect((await l.hit('k')).allowed).toBe(true);
    expect((await l.hit('k')).allowed).toBe(false);
  });

  it('a refusal with less than a second left still says to wait 1 s', async () => {
    const l = limit(1, MINUTE);
    await l.hit('k');
    vi.advanceTimersByTime(MINUTE - 1);
    expect(await l.hit('k')).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it(
    'concurrent hits on one key are counted exactly: 8 ' + 'at once with a budget of 5 → 5 allowed, 3 refused',
    async () => {
      const l = limit(5, MINUTE);
      const verdicts = await Promise.all(Array.from({ length: 8 }, () => l.hit('sprayer')));
      expect(verdicts.filter((v) => v.allowed)).toHaveLength(5);
      expect(verdicts.filter((v) => !v.allowed).map((v) => v.retryAfterSeconds)).toEqual([60, 60, 60]);
    },
  );

  it('the purge forgets closed windows and keeps open ones', async () => {
    const closed = limit(1, MINUTE);
    const open = limit(1, 10 * MINUTE);
    await closed.hit('k');
    await open.hit('k');
    vi.advanceTimersByTime(MINUTE);
    await purgeExpiredRateLimits(pool);
    const keys = (await pool.query<{ key: string }>('SELECT key FROM rate_limits ORDER BY key')).rows.map((r) => r.key);
    expect(keys).toContain(`test-${n}:k`);
    expect(keys).not.toContain(`test-${n - 1}:k`);
    expect((await open.hit('k')).allowed).toBe(false);
  });
});

describe('rate limits without their database', () => {
  it('a store that fails is an error of the store (503 when the database is away), never a refusal', async () => {
    const lost = new DatabaseUnavailable(new Error('Connection terminated unexpectedly'));
    const pool = { query: () => Promise.reject(lost) } as unknown as SqlPool;
    await expect(rateLimit(pool, 'away', 5, MINUTE).hit('k')).rejects.toBe(lost);
  });
});
