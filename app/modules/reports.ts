import type { AppModule } from '../context.js';
import { cityCentreMigrations } from '../../infra/cities/cityCentres.js';
import { reportTableMigrations } from '../../projections/reports/reportTables.js';
import { reportsProjector } from '../../projections/reports/reportsProjector.js';
import { cancellationsReport } from '../../api/admin/reports/cancellationsReport.js';
import { documentsReport } from '../../api/admin/reports/documentsReport.js';
import { driversReport } from '../../api/admin/reports/driversReport.js';
import { intentsReport } from '../../api/admin/reports/intentsReport.js';
import { operationalReport } from '../../api/admin/reports/operationalReport.js';
import { ordersReport } from '../../api/admin/reports/ordersReport.js';
import { performanceReport } from '../../api/admin/reports/performanceReport.js';
import { reportRoutes } from '../../api/admin/reports/routes.js';

/** Back-office reports and exports (#12), read from the report tables; and the city centres orders are placed in. */
export const reportsModule: AppModule = {
  name: 'reports',
  migrations: { ...cityCentreMigrations, ...reportTableMigrations },
  projectors: [reportsProjector],
  routes: (ctx, router) =>
    reportRoutes(ctx, router, [
      ordersReport,
      cancellationsReport,
      intentsReport,
      operationalReport,
      driversReport,
      documentsReport,
      performanceReport,
    ]),
};
