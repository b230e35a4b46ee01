import { sql, type Kysely, type Migration } from 'kysely';

/** Settlement's state-stored counters: no event rebuilds them, and a rebuild of the read models leaves them. */
declare module '../../infra/db/database.js' {
  interface Database {
    /** Receipt numbers, sequential per fiscal period, one per receipt id whatever the retries. */
    settlement_receipt_numbers: { receipt_id: string; fiscal_period: string; seq: number };
    /** Which scheduled occurrence (process, local date) an instance has claimed. */
    settlement_scheduled_runs: { process: string; run_date: string; claimed_at: Date; finished_at: Date | null };
    /** The revision of each stream's last period close (docs/decisions/0098): where its next load starts. */
    period_closes: { stream_id: string; revision: number };
  }
}

export const settlementStoreMigrations: Record<string, Migration> = {
  // Created by 0200 on databases made before the counters had a migration of their own: IF NOT EXISTS.
  '0202_settlement_counters': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE IF NOT EXISTS settlement_receipt_numbers (
        receipt_id text PRIMARY KEY,
        fiscal_period text NOT NULL,
        seq integer NOT NULL,
        UNIQUE (fiscal_period, seq)
      )`.execute(db);
      await sql`CREATE TABLE IF NOT EXISTS settlement_scheduled_runs (
        process text NOT NULL,
        run_date text NOT NULL,
        claimed_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        PRIMARY KEY (process, run_date)
      )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE settlement_scheduled_runs, settlement_receipt_numbers`.execute(db);
    },
  },
  '0204_period_closes': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE period_closes (stream_id text PRIMARY KEY, revision bigint NOT NULL)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE period_closes`.execute(db);
    },
  },
};
