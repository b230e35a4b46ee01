import { formatInTimeZone } from 'date-fns-tz';
import { sql } from 'kysely';
import type { SettlementConfig } from '../../domain/settlement/config.js';
import type { ScheduledJob } from '../../infra/scheduler.js';
import { runCutoff, type RunReceipt, type SettlementCtx } from './cutoff.js';
import { runPayout, runReconcile } from './payout.js';
import { loadSettlementConfig } from './settlementConfig.js';

export type SettlementProcess = 'cutoff' | 'payout' | 'reconcile';

/**
 * The scheduled occurrences due at `now`: the cutoff and the payout once per active day of the configured
 * timezone, from their wall-clock time on (so an instance that was down at 18:00 still runs that day's).
 */
export const dueOccurrences = (
  config: SettlementConfig,
  now: Date,
): { process: SettlementProcess; runDate: string }[] => {
  const localDate = formatInTimeZone(now, config.timezone, 'yyyy-MM-dd');
  const localTime = formatInTimeZone(now, config.timezone, 'HH:mm');
  const weekday = Number(formatInTimeZone(now, config.timezone, 'i')) % 7; // ISO 1..7 (Monday..Sunday) → 0 = Sunday
  if (!config.activeDays[weekday]) return [];
  const due: { process: SettlementProcess; runDate: string }[] = [];
  if (config.cutoffEnabled && localTime >= config.cutoffTime) due.push({ process: 'cutoff', runDate: localDate });
  if (config.payoutEnabled && localTime >= config.payoutTime) due.push({ process: 'payout', runDate: localDate });
  return due;
};

/** A claim not finished within this long is taken to have died with its instance, and may be taken over. */
const STALE_CLAIM_MINUTES = 15;

/**
 * The one-owner rule of scheduled settlement runs: across instances sharing a database, exactly one
 * claims an occurrence (process, local date); a claim whose owner died unfinished is taken over later.
 */
const claim = async (ctx: SettlementCtx, process: string, runDate: string, now: Date): Promise<boolean> => {
  const inserted = await sql<{ process: string }>`INSERT INTO settlement_scheduled_runs (process, run_date, claimed_at)
    VALUES (${process}, ${runDate}, ${now}) ON CONFLICT DO NOTHING RETURNING process`.execute(ctx.db);
  if (inserted.rows.length) return true;
  const stale = new Date(now.getTime() - STALE_CLAIM_MINUTES * 60_000);
  const taken = await sql<{ process: string }>`UPDATE settlement_scheduled_runs SET claimed_at = ${now}
    WHERE process = ${process} AND run_date = ${runDate} AND finished_at IS NULL AND claimed_at < ${stale}
    RETURNING process`.execute(ctx.db);
  return taken.rows.length > 0;
};

const finish = (ctx: SettlementCtx, process: string, runDate: string, now: Date) =>
  sql`UPDATE settlement_scheduled_runs SET finished_at = ${now}
    WHERE process = ${process} AND run_date = ${runDate}`.execute(ctx.db);

export const runProcess = (ctx: SettlementCtx, process: SettlementProcess, metadata = {}): Promise<RunReceipt[]> =>
  process === 'cutoff'
    ? runCutoff(ctx, metadata)
    : process === 'payout'
      ? runPayout(ctx, metadata)
      : runReconcile(ctx, metadata);

/** The settlement scheduler: claimed cutoffs and payouts when due; reconciliation on every tick (idempotent). */
export const settlementScheduleJob = (ctx: SettlementCtx): ScheduledJob => {
  let running: Promise<void> | null = null;
  const once = async (now: Date) => {
    const config = await loadSettlementConfig(ctx);
    for (const { process, runDate } of dueOccurrences(config, now)) {
      if (!(await claim(ctx, process, runDate, now))) continue;
      const issued = await runProcess(ctx, process, { actor: { id: null, role: 'SYSTEM' } });
      await finish(ctx, process, runDate, ctx.clock.now());
      ctx.logger.info({ process, runDate, receipts: issued.length }, 'settlement run finished');
    }
    await runReconcile(ctx, { actor: { id: null, role: 'SYSTEM' } });
  };
  return {
    name: 'settlement-schedule',
    everyMs: ctx.config.SETTLEMENT_SCHEDULER_MS,
    run: async (now) => {
      running ??= once(now).finally(() => {
        running = null;
      });
      await running;
    },
  };
};
