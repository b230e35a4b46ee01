import type { AppModule } from '../context.js';
import { incidentViewMigrations, incidentViewsProjector } from '../../projections/incidents/incidentViews.js';
import { incidentRoutes } from '../../api/incidents/routes.js';

/** Incidents reported on an order by its customer or its driver (issue #4). */
export const incidentsModule: AppModule = {
  name: 'incidents',
  migrations: incidentViewMigrations,
  projectors: [incidentViewsProjector],
  routes: incidentRoutes,
};
