import { milestoneGrantsJob } from '../../commands/promotions/milestoneGrants.js';
import type { AppModule } from '../context.js';
import { promotionViewMigrations, promotionViewsProjector } from '../../projections/promotions/promotionViews.js';
import { adminPromotionRoutes } from '../../api/admin/promotions/routes.js';

/** Promotion campaigns and their milestone grants. */
export const promotionsModule: AppModule = {
  name: 'promotions',
  migrations: promotionViewMigrations,
  projectors: [promotionViewsProjector],
  init(ctx) {
    ctx.scheduler.register(milestoneGrantsJob(ctx));
  },
  routes: adminPromotionRoutes,
};
