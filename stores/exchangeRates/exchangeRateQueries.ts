import type { Db } from '../../infra/db/database.js';
import { rateFromRow, type ExchangeRate } from './exchangeRates.js';

export type { ExchangeRate } from './exchangeRates.js';

/**
 * The official VES rate in force at `at` (the latest whose effective_at is not after it), or null when
 * none is: callers answer 422 ExchangeRateUnavailable. Snapshot `rateCents` (and `id`) on the order.
 */
export const officialRateAt = async (db: Db, at: Date): Promise<ExchangeRate | null> => {
  const row = await db
    .selectFrom('exchange_rates')
    .select(['id', 'currency', 'rate', 'rate_cents', 'effective_at'])
    .where('currency', '=', 'VES')
    .where('effective_at', '<=', at)
    .orderBy('effective_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? rateFromRow(row) : null;
};
