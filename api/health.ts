import type { Router } from 'express';
import type { ApiContext } from './apiContext.js';
import { pingDatabase } from '../infra/db/database.js';

const within = <T>(p: Promise<T>, ms: number): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);

/**
 * /health: the process is up (a liveness probe; it never touches the database, so an outage does not
 * get the process restarted). /ready: event store, database and bus answer, projections are not behind, and
 * no stop has begun. "Behind" is judged by age: the oldest event that some projector has
 * not applied yet must be younger than READY_MAX_PROJECTION_LAG_MS. Comparing with the head alone failed
 * whenever a write was in flight, and would pull healthy instances out of rotation under any load.
 */
export const healthRoutes = (ctx: ApiContext, router: Router): void => {
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/ready', async (_req, res) => {
    if (ctx.readiness.stopping) {
      res.setHeader('Retry-After', '5');
      res.status(503).json({ status: 'stopping', checks: { stopping: false } });
      return;
    }
    const checks: Record<string, boolean> = {};
    const check = async (name: string, f: () => Promise<unknown>) => {
      try {
        await within(f(), 2000);
        checks[name] = true;
      } catch {
        checks[name] = false;
      }
    };
    let head = 0;
    let projectionLagMs: number | null = null;
    await check('eventStore', async () => (head = await ctx.store.headPosition()));
    await check('database', () => pingDatabase(ctx.db));
    await check('bus', () => ctx.bus.flush());
    await check('projections', async () => {
      // An instance that only serves the API follows the checkpoints that the projector instance writes.
      await ctx.runner.refreshFollowed();
      const lowest = ctx.runner.lowestPosition();
      const [oldestPending] = lowest < head ? await ctx.store.readAll(lowest, 1) : [];
      projectionLagMs = oldestPending ? Math.max(0, Date.now() - oldestPending.recordedAt.getTime()) : 0;
      if (projectionLagMs > ctx.config.READY_MAX_PROJECTION_LAG_MS) throw new Error('projections behind');
    });
    checks.projections &&= checks.eventStore;
    const ok = Object.values(checks).every(Boolean);
    if (!ok) res.setHeader('Retry-After', '5');
    res
      .status(ok ? 200 : 503)
      .json({ status: ok ? 'ready' : 'not_ready', checks, projectionLagMs, positions: ctx.runner.positions() });
  });
};
