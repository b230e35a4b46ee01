import { sql } from 'kysely';
import type { Db } from '../../infra/db/database.js';
import './settlementTables.js';

/** A claim not finished within this long is taken to have died with its instance, and may be taken over. */
const STALE_CLAIM_MINUTES = 15;

/**
 * The one-owner rule of scheduled settlement runs: across instances sharing a database, exactly one
 * claims an occurrence (process, local date); a claim whose owner died unfinished is taken over later.
 */
export const claimScheduledRun = async (db: Db, process: string, runDate: string, now: Date): Promise<boolean> => {
  const inserted = await sql<{ process: string }>`INSERT INTO settlement_scheduled_runs (process, run_date, claimed_at)
    VALUES (${process}, ${runDate}, ${now}) ON CONFLICT DO NOTHING RETURNING process`.execute(db);
  if (inserted.rows.length) return true;
  const stale = new Date(now.getTime() - STALE_CLAIM_MINUTES * 60_000);
  const taken = await sql<{ process: string }>`UPDATE settlement_scheduled_runs SET claimed_at = ${now}
    WHERE process = ${process} AND run_date = ${runDate} AND finished_at IS NULL AND claimed_at < ${stale}
    RETURNING process`.execute(db);
  return taken.rows.length > 0;
};

export const finishScheduledRun = async (db: Db, process: string, runDate: string, now: Date): Promise<void> => {
  await sql`UPDATE settlement_scheduled_runs SET finished_at = ${now}
    WHERE process = ${process} AND run_date = ${runDate}`.execute(db);
};
