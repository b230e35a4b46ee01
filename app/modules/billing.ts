import type { AppModule } from '../context.js';
import { billingProfileMigrations } from '../../stores/billing/billingProfiles.js';
import { billingProfileRoutes } from '../../api/billing/routes.js';

/** Customer billing profiles. */
export const billingModule: AppModule = {
  name: 'billing',
  migrations: billingProfileMigrations,
  routes: billingProfileRoutes,
};
