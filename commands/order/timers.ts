import type { AppContext } from '../../infra/context.js';
import type { ScheduledJob } from '../../infra/scheduler.js';
import { dueTimers } from '../../projections/orders/orderQueries.js';
import { expireOffer, expireOrder } from './closing.js';

/**
 * The life cycle's timers (docs/domain-rules.md): bidding past expires_at, a payment window past its end, an offer
 * past its TTL. The read model says what looks due; the decider, on the stream, decides whether it still is
 * (a payment that arrived meanwhile wins). A run settles what it wrote, so `scheduler.tick()` returns with
 * the read models showing the expiries.
 */
export const orderTimersJob = (ctx: AppContext, everyMs = 5000): ScheduledJob => {
  let running: Promise<void> | null = null;
  const runOnce = async (now: Date) => {
    const due = await dueTimers(ctx.db, now, 500);
    let last = 0;
    const attempt = async (what: string, run: () => Promise<{ position: number }>) => {
      try {
        last = Math.max(last, (await run()).position);
      } catch (err) {
        ctx.logger.error({ err, timer: what }, 'order timer failed; it will be retried');
      }
    };
    for (const o of due.offers) await attempt(`offer ${o.offerId}`, () => expireOffer(ctx, o.orderId, o.offerId));
    for (const id of due.orderIds) await attempt(`order ${id}`, () => expireOrder(ctx, id));
    await ctx.settle(last);
  };
  return {
    name: 'order-timers',
    everyMs,
    run: async (now) => {
      running ??= runOnce(now).finally(() => {
        running = null;
      });
      await running;
    },
  };
};
