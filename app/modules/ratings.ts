import type { AppModule } from '../context.js';
import { ratingViewMigrations, ratingViewsProjector } from '../../projections/ratings/ratingViews.js';
import { ratingRoutes } from '../../api/ratings/routes.js';

/**
 * Ratings of delivered orders (issue #4). The driver's average lives in the drivers read model
 * (projections/ratings/driverRatingHandlers.ts runs inside the drivers projector).
 */
export const ratingsModule: AppModule = {
  name: 'ratings',
  migrations: ratingViewMigrations,
  projectors: [ratingViewsProjector],
  routes: ratingRoutes,
};
