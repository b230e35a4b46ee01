import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { SqlPool } from '../../infra/db/sqlPool.js';

export interface RateLimitVerdict {
  allowed: boolean;
  retryAfterSeconds: number;
}

/** At most `points` hits per key in a window that opens at the key's first hit and lasts `windowMs`. */
export interface RateLimit {
  hit(key: string): Promise<RateLimitVerdict>;
  /** Gives one hit back (a login that succeeded was no guess). */
  refund(key: string): Promise<void>;
}

/** Created by our migration (stores/identity/identityTables.ts), in rate-limiter-flexible's own layout. */
const TABLE = 'rate_limits';

/**
 * rate-limiter-flexible's PostgreSQL store over our pool, on a PostgreSQL server and the embedded one alike
 * (docs/decisions/0029-abuse-limits.md). Its one upsert per hit counts atomically
 * however many instances share the table. The library reads Date.now(), not the injected Clock.
 * `name` keeps limits with the same keys apart (the library's key prefix).
 */
export const rateLimit = (pool: SqlPool, name: string, points: number, windowMs: number): RateLimit => {
  const limiter = new RateLimiterPostgres({
    // The store calls query({ text, values }) and reads rows and rowCount; statement names are dropped.
    storeClient: { query: (q: { text: string; values?: unknown[] }) => pool.query(q.text, q.values) },
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
  };
};

/** Forgets windows that have closed (a scheduled job); the library's expiry is Date.now() in ms. */
export const purgeExpiredRateLimits = async (pool: SqlPool): Promise<void> => {
  await pool.query(`DELETE FROM ${TABLE} WHERE expire <= $1`, [Date.now()]);
};
