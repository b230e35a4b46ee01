import type { Router } from 'express';
import { sql } from 'kysely';
import type { AppContext } from '../infra/context.js';

const within = <T>(p: Promise<T>, ms: number): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);

/** /health: the process is up. /ready: event store, database and bus answer, and projections are caught up. */
export const healthRoutes = (ctx: AppContext, router: Router): void => {
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/ready', async (_req, res) => {
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
    await check('eventStore', async () => (head = await ctx.store.headPosition()));
    await check('database', () => sql`SELECT 1`.execute(ctx.db));
    await check('bus', () => ctx.bus.flush());
    checks.projections = checks.eventStore && ctx.runner.lowestPosition() >= head;
    const ok = Object.values(checks).every(Boolean);
    if (!ok) res.setHeader('Retry-After', '5');
    res.status(ok ? 200 : 503).json({ status: ok ? 'ready' : 'not_ready', checks, positions: ctx.runner.positions() });
  });
};
