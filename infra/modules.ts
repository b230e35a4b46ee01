import type { AppModule } from './context.js';
import { eventStoreMigrations } from './eventStore/migrations.js';
import { projectionRunnerMigrations } from '../projections/migrations.js';
import { devOutboxMigrations } from './outbox/devOutbox.js';
import { devRoutes } from '../api/dev/routes.js';

/** Every area of the service, in the order their init runs. Add a module here to wire it in. */
export const modules: AppModule[] = [
  { name: 'core', migrations: { ...eventStoreMigrations, ...projectionRunnerMigrations, ...devOutboxMigrations }, routes: devRoutes },
];
