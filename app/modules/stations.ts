import { runNextImportJob } from '../../commands/stations/bulkImport.js';
import type { AppModule } from '../context.js';
import { stationMigrations } from '../../stores/stations/stationStore.js';
import { adminStationRoutes } from '../../api/admin/stations/routes.js';
import { publicStationRoutes } from '../../api/stations/routes.js';

/** How often waiting station import jobs are looked for. */
const IMPORT_POLL_MS = 2000;

/**
 * The crowd-sourced station directory (state-stored): public directory, reports, comments, administration, bulk import.
 */
export const stationsModule: AppModule = {
  name: 'stations',
  migrations: stationMigrations,
  init(ctx) {
    ctx.scheduler.register({
      name: 'station-import-jobs',
      everyMs: IMPORT_POLL_MS,
      async run() {
        while (await runNextImportJob(ctx.db, () => ctx.clock.now(), ctx.logger));
      },
    });
  },
  routes(ctx, router) {
    publicStationRoutes(ctx, router);
    adminStationRoutes(ctx, router);
  },
};
