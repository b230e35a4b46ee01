import type { CommandDeps } from '../deps.js';
import type { ScheduledJob } from '../../infra/scheduler.js';
import { dueSurplusListings } from '../../projections/surplus/surplusQueries.js';
import { expireSurplus } from './handlers.js';

type Deps = Pick<CommandDeps, 'handle' | 'clock' | 'config' | 'store' | 'db' | 'reference' | 'logger' | 'settle'>;

/**
 * ACTIVA → EXPIRADA once expires_at passes. The read model says what looks due; the decider, on the
 * listing's stream, decides whether it still is (a reservation that won the race stays). A run settles
 * what it wrote, so `scheduler.tick()` returns with the read model showing the expiries.
 */
export const surplusTimersJob = (ctx: Deps, everyMs = 30_000): ScheduledJob => {
  let running: Promise<void> | null = null;
  const runOnce = async (now: Date) => {
    let last = 0;
    for (const id of await dueSurplusListings(ctx.db, now, 500)) {
      try {
        last = Math.max(last, (await expireSurplus(ctx, id)).position);
      } catch (err) {
        ctx.logger.error({ err, listingId: id }, 'surplus expiry failed; it will be retried');
      }
    }
    await ctx.settle(last);
  };
  return {
    name: 'surplus-timers',
    everyMs,
    run: async (now) => {
      running ??= runOnce(now).finally(() => {
        running = null;
      });
      await running;
    },
  };
};
