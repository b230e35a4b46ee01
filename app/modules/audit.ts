import { auditAccessRoutes } from '../../api/admin/audit/accessRoutes.js';
import { auditRoutes } from '../../api/admin/audit/routes.js';
import { dailyAnchorJob } from '../../commands/audit/anchors.js';
import { auditAccessMigrations } from '../../stores/audit/auditAccess.js';
import type { AppModule } from '../context.js';

/** Hash chains of the money streams: daily anchors, exports and chain status (issue #33); what auditors read (#43). */
export const auditModule: AppModule = {
  name: 'audit',
  migrations: auditAccessMigrations,
  init(ctx) {
    ctx.scheduler.register(dailyAnchorJob(ctx, ctx.config.SETTLEMENT_SCHEDULER_MS));
  },
  routes(ctx, router) {
    auditRoutes(ctx, router);
    auditAccessRoutes(ctx, router);
  },
};
