import type { AppModule } from '../context.js';
import { surplusTimersJob } from '../../commands/surplus/timers.js';
import { surplusListingMigrations, surplusListingsProjector } from '../../projections/surplus/surplusListings.js';
import { surplusRoutes } from '../../api/surplus/routes.js';

/** End-of-route surplus listings that a customer reserves whole. */
export const surplusModule: AppModule = {
  name: 'surplus',
  migrations: surplusListingMigrations,
  projectors: [surplusListingsProjector],
  init(ctx) {
    ctx.scheduler.register(surplusTimersJob(ctx));
  },
  routes: surplusRoutes,
};
