import { sql } from 'kysely';
import type { Db } from '../../infra/db/database.js';

export interface RateLimitVerdict {
  allowed: boolean;
  retryAfterSeconds: number;
}

/**
 * A sliding-window limit held in PostgreSQL so that every instance counts the same hits. The advisory
 * lock makes check-and-count atomic per key; a refused attempt is not counted.
 */
export const hitRateLimit = (db: Db, key: string, limit: number, windowMs: number, now: Date): Promise<RateLimitVerdict> =>
  db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(4242, hashtext(${key}))`.execute(trx);
    const since = new Date(now.getTime() - windowMs);
    await trx.deleteFrom('rate_limit_hits').where('key', '=', key).where('at', '<=', since).execute();
    const hits = await trx.selectFrom('rate_limit_hits').select('at').where('key', '=', key).orderBy('at', 'asc').execute();
    if (hits.length >= limit) {
      const freeAt = new Date(hits[hits.length - limit].at).getTime() + windowMs;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000)) };
    }
    await trx.insertInto('rate_limit_hits').values({ key, at: now }).execute();
    return { allowed: true, retryAfterSeconds: 0 };
  });

/** Forgets hits that no window can still count (a scheduled job). */
export const purgeRateLimitHits = async (db: Db, olderThan: Date): Promise<void> => {
  await db.deleteFrom('rate_limit_hits').where('at', '<=', olderThan).execute();
};
