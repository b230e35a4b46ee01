import { sql, type Generated, type Kysely, type Migration } from 'kysely';
import type { Db } from '../../infra/db/database.js';
import { usdToCents } from '../../domain/money.js';

/**
 * The official VES rate is a time-stamped series that admins maintain (state-stored, not event-sourced):
 * a new rate never overwrites an old one, so an order can always be traced to the rate in force when it
 * was created.
 */
declare module '../../infra/db/database.js' {
  interface Database {
    exchange_rates: {
      id: Generated<number>;
      currency: string;
      /** Bolivars per USD, exactly as the admin gave it. */
      rate: string;
      rate_cents: number;
      effective_at: Date;
      /** The admin who recorded it; null for the start-up seed. */
      created_by: number | null;
      created_at: Generated<Date>;
    };
  }
}

export const exchangeRateMigrations: Record<string, Migration> = {
  '0200_exchange_rates': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE exchange_rates (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        currency text NOT NULL,
        rate numeric(20, 8) NOT NULL CHECK (rate > 0),
        rate_cents bigint NOT NULL CHECK (rate_cents > 0),
        effective_at timestamptz NOT NULL,
        created_by bigint,
        created_at timestamptz NOT NULL DEFAULT now()
      )`.execute(db);
      await sql`CREATE INDEX exchange_rates_in_force ON exchange_rates (currency, effective_at DESC, id DESC)`.execute(
        db,
      );
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE exchange_rates`.execute(db);
    },
  },
};

export type RateCurrency = 'VES';

export interface ExchangeRate {
  id: number;
  currency: RateCurrency;
  /** Bolivars per USD. */
  rate: number;
  /** round(rate × 100): the integer the orders and payments snapshot. */
  rateCents: number;
  effectiveAt: Date;
}

type Row = { id: number; currency: string; rate: string | number; rate_cents: number; effective_at: Date | string };

export const rateFromRow = (r: Row): ExchangeRate => ({
  id: Number(r.id),
  currency: r.currency as RateCurrency,
  rate: Number(r.rate),
  rateCents: Number(r.rate_cents),
  effectiveAt: new Date(r.effective_at),
});

/** Records a rate that is in force from `effectiveAt` on. */
export const recordExchangeRate = async (
  db: Db,
  input: { currency: RateCurrency; rate: number; effectiveAt: Date; createdBy: number | null },
): Promise<ExchangeRate> => {
  const row = await db
    .insertInto('exchange_rates')
    .values({
      currency: input.currency,
      rate: String(input.rate),
      rate_cents: usdToCents(input.rate),
      effective_at: input.effectiveAt,
      created_by: input.createdBy,
    })
    .returning(['id', 'currency', 'rate', 'rate_cents', 'effective_at'])
    .executeTakeFirstOrThrow();
  return rateFromRow(row);
};

/**
 * Puts the start-up seed in force when the series is empty (commands/exchangeRates/setRate.ts records its
 * event first). Instances of one deployment start side by side, so the check and the insert run under one
 * advisory lock: exactly one row is written (true for the instance that wrote it).
 */
export const seedOfficialRate = async (db: Db, seed: { rate: number; effectiveAt: Date }): Promise<boolean> =>
  db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtext('exchange_rates_seed'))`.execute(trx);
    if (await hasAnyRate(trx)) return false;
    await recordExchangeRate(trx, { currency: 'VES', ...seed, createdBy: null });
    return true;
  });

/** Whether the VES series holds any rate at all. */
export const hasAnyRate = async (db: Db): Promise<boolean> =>
  (await db.selectFrom('exchange_rates').select('id').where('currency', '=', 'VES').limit(1).executeTakeFirst()) !==
  undefined;

/** One page of the series, newest first. */
export const listExchangeRates = async (
  db: Db,
  page: { limit: number; page: number },
): Promise<{ items: ExchangeRate[]; total: number }> => {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('exchange_rates')
      .select(['id', 'currency', 'rate', 'rate_cents', 'effective_at'])
      .orderBy('effective_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset((page.page - 1) * page.limit)
      .execute(),
    db
      .selectFrom('exchange_rates')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(rateFromRow), total: Number(count.n) };
};
