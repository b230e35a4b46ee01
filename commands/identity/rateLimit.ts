import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { SqlClient } from '../../infra/db/sqlPool.js';

export interface RateLimitVerdict {
  allowed: boolean;
  retryAfterSeconds: number;
}

/** At most `points` hits per key in a window that opens at the key's first hit and lasts `windowMs`. */
export interface RateLimit {
  hit(key: string): Promise<RateLimitVerdict>;
  /** Gives one hit back (a login that succeeded was no guess). */
  refund(key: string): Promise<void>;
  /** Whether a hit now would be allowed, counting nothing: a judgement before the write that counts it. */
  peek(key: string): Promise<RateLimitVerdict>;
  /** Counts a hit already judged by `peek`, whatever a hit racing it left (it is not refused twice). */
  count(key: string): Promise<void>;
}

/** Created by our migration (stores/identity/identityTables.ts), in rate-limiter-flexible's own layout. */
const TABLE = 'rate_limits';

/**
 * rate-limiter-flexible's PostgreSQL store over our pool, on a PostgreSQL server and the embedded one alike
 * (docs/decisions/0029-abuse-limits.md). Its one upsert per hit counts atomically
 * however many instances share the table. The library reads Date.now(), not the injected Clock.
 * `name` keeps limits with the same keys apart (the library's key prefix). `on` is the pool, or the connection
 * of a transaction the counting joins (a command's append).
 */
export const rateLimit = (on: Pick<SqlClient, 'query'>, name: string, points: number, windowMs: number): RateLimit => {
  const limiter = new RateLimiterPostgres({
    // The store calls query({ text, values }) and reads rows and rowCount; statement names are dropped.
    storeClient: { query: (q: { text: string; values?: unknown[] }) => on.query(q.text, q.values) },
    storeType: 'pool',
    tableName: TABLE,
    tableCreated: true,
    // Expired rows are cleared by the identity-cleanup job, not by a timer per limiter that would
    // outlive a stopped service.
    clearExpiredByTimeout: false,
    keyPrefix: name,
    points,
    duration: windowMs / 1000,
  });
  return {
    async hit(key) {
      try {
        await limiter.consume(key);
        return { allowed: true, retryAfterSeconds: 0 };
      } catch (err) {
        // A refusal is a RateLimiterRes; anything else is the store failing (a lost database is 503).
        if (!(err instanceof RateLimiterRes)) throw err;
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)) };
      }
    },
    async refund(key) {
      await limiter.reward(key, 1);
    },
    async peek(key) {
      const res = await limiter.get(key);
      if (!res || res.consumedPoints < points) return { allowed: true, retryAfterSeconds: 0 };
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) };
    },
    async count(key) {
      await limiter.consume(key).catch((err: unknown) => {
        if (!(err instanceof RateLimiterRes)) throw err;
      });
    },
  };
};

/** Forgets windows that have closed (a scheduled job); the library's expiry is Date.now() in ms. */
export const purgeExpiredRateLimits = async (pool: Pick<SqlClient, 'query'>): Promise<void> => {
  await pool.query(`DELETE FROM ${TABLE} WHERE expire <= $1`, [Date.now()]);
};
