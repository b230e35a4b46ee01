import { promotionMigrations } from '../../../commands/promotions/campaigns.js';
import { milestoneGrantsJob } from '../../../commands/promotions/milestoneGrants.js';
import type { AppModule } from '../../../infra/context.js';
import { adminPromotionRoutes } from './routes.js';

/** Promotion campaigns and their client milestone grants (back-office §4.6). */
export const promotionsModule: AppModule = {
  name: 'promotions',
  migrations: promotionMigrations,
  init(ctx) {
    ctx.scheduler.register(milestoneGrantsJob(ctx));
  },
  routes: adminPromotionRoutes,
};
