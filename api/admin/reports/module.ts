import type { AppModule } from '../../../infra/context.js';
import { cityCentreMigrations } from '../../../infra/cities/cityCentres.js';
import { reportTableMigrations } from '../../../projections/reports/reportTables.js';
import { reportsProjector } from '../../../projections/reports/reportsProjector.js';
import { cancellationsReport } from './cancellationsReport.js';
import { documentsReport } from './documentsReport.js';
import { driversReport } from './driversReport.js';
import { intentsReport } from './intentsReport.js';
import { operationalReport } from './operationalReport.js';
import { ordersReport } from './ordersReport.js';
import { performanceReport } from './performanceReport.js';
import { reportRoutes } from './routes.js';

/** Back-office reports and exports (#12), read from the report tables; and the city centres orders are placed in. */
export const reportsModule: AppModule = {
  name: 'reports',
  migrations: { ...cityCentreMigrations, ...reportTableMigrations },
  projectors: [reportsProjector],
  routes: (ctx, router) => reportRoutes(ctx, router, [ordersReport, cancellationsReport, intentsReport, operationalReport, driversReport, documentsReport, performanceReport]),
};
