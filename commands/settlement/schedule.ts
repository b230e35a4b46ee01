import { formatInTimeZone } from 'date-fns-tz';
import type { SettlementConfig } from '../../domain/settlement/config.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import { timed } from '../../infra/metrics/metrics.js';
import type { ScheduledJob } from '../../infra/scheduler.js';
import { runCutoff, type RunReceipt, type SettlementCtx } from './cutoff.js';
import { runPayout, runReconcile } from './payout.js';
import { loadSettlementConfig } from './settlementConfig.js';
import { claimScheduledRun, finishScheduledRun } from '../../stores/settlement/scheduledRuns.js';

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

const runners: Record<SettlementProcess, (ctx: SettlementCtx, metadata: EventMetadata) => Promise<RunReceipt[]>> = {
  cutoff: runCutoff,
  payout: runPayout,
  reconcile: runReconcile,
};

/** One run, timed and counted by process and outcome (a failed cutoff is what an operator is paged for). */
export const runProcess = (ctx: SettlementCtx, process: SettlementProcess, metadata = {}): Promise<RunReceipt[]> =>
  timed(
    () => runners[process](ctx, metadata),
    (seconds, outcome, receipts) => {
      ctx.metrics.settlementRuns.inc({ process, outcome });
      ctx.metrics.settlementDuration.observe({ process }, seconds);
      if (receipts) ctx.metrics.settlementReceipts.inc({ process }, receipts.length);
    },
  );

/** The settlement scheduler: claimed cutoffs and payouts when due; reconciliation on every tick (idempotent). */
export const settlementScheduleJob = (ctx: SettlementCtx): ScheduledJob => {
  let running: Promise<void> | null = null;
  const once = async (now: Date) => {
    const config = await loadSettlementConfig(ctx);
    for (const { process, runDate } of dueOccurrences(config, now)) {
      if (!(await claimScheduledRun(ctx.db, process, runDate, now))) continue;
      const issued = await runProcess(ctx, process, { actor: { id: null, role: 'SYSTEM' } });
      await finishScheduledRun(ctx.db, process, runDate, ctx.clock.now());
      ctx.logger.info({ process, runDate, receipts: issued.length }, 'settlement run finished');
    }
    await runProcess(ctx, 'reconcile', { actor: { id: null, role: 'SYSTEM' } });
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
