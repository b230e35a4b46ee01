import { auditRoutes } from '../../api/admin/audit/routes.js';
import { dailyAnchorJob } from '../../commands/audit/anchors.js';
import type { AppModule } from '../context.js';

/** Hash chains of the money streams: daily anchors, exports and chain status (issue #33). */
export const auditModule: AppModule = {
  name: 'audit',
  init(ctx) {
    ctx.scheduler.register(dailyAnchorJob(ctx, ctx.config.SETTLEMENT_SCHEDULER_MS));
  },
  routes: auditRoutes,
};
