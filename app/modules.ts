import type { StoredFunction } from '../infra/db/migrate.js';
import type { Migration } from 'kysely';
import type { AppModule } from './context.js';
import { eventStoreFunctions } from '../infra/eventStore/functions.js';
import { eventStoreMigrations } from '../infra/eventStore/migrations.js';
import { projectionRunnerMigrations } from '../projections/migrations.js';
import { inlineProjectionMigrations } from '../projections/inline.js';
import { devOutboxMigrations } from '../stores/outbox/devOutbox.js';
import { processManagerMigrations } from '../stores/processManager/checkpoints.js';
import { devRoutes } from '../api/dev/routes.js';
import { notificationsModule } from './modules/notifications.js';
import { deviceTokensModule } from './modules/deviceTokens.js';
import { identityModule } from './modules/identity.js';
import { exchangeRatesModule } from './modules/exchangeRates.js';
import { paymentMethodsModule } from './modules/paymentMethods.js';
import { paymentFormsModule } from './modules/paymentForms.js';
import { billingModule } from './modules/billing.js';
import { ordersModule } from './modules/orders.js';
import { paymentsModule } from './modules/payments.js';
import { ratingsModule } from './modules/ratings.js';
import { incidentsModule } from './modules/incidents.js';
import { chatModule } from './modules/chat.js';
import { stationsModule } from './modules/stations.js';
import { geocodingModule } from './modules/geocoding.js';
import { surplusModule } from './modules/surplus.js';
import { customersModule } from './modules/customers.js';
import { promotionsModule } from './modules/promotions.js';
// wallet (#10)
import { walletModule } from './modules/wallet.js';
// settlement (#11)
import { settlementModule } from './modules/settlements.js';
// Reports (#12)
import { reportsModule } from './modules/reports.js';
// Audit (#33)
import { auditModule } from './modules/audit.js';

/** Every area of the service, in the order their init runs. Add a module here to wire it in. */
export const modules: AppModule[] = [
  {
    name: 'core',
    migrations: {
      ...eventStoreMigrations,
      ...projectionRunnerMigrations,
      ...inlineProjectionMigrations,
      ...devOutboxMigrations,
      ...processManagerMigrations,
    },
    functions: eventStoreFunctions,
    routes: devRoutes,
  },
  notificationsModule,
  deviceTokensModule,
  identityModule,
  exchangeRatesModule,
  paymentMethodsModule,
  paymentFormsModule,
  billingModule,
  ordersModule,
  paymentsModule,
  ratingsModule,
  incidentsModule,
  chatModule,
  stationsModule,
  geocodingModule,
  surplusModule,
  customersModule,
  promotionsModule,
  // wallet (#10)
  walletModule,
  // settlement (#11)
  settlementModule,
  // Reports (#12)
  reportsModule,
  // Audit (#33)
  auditModule,
];

/** Every module's migrations in one set, as the service, the CLIs and the test templates run them. */
export const migrationsOf = (ms: readonly AppModule[] = modules): Record<string, Migration> =>
  Object.assign({}, ...ms.map((m) => m.migrations ?? {}));

/** Every module's stored SQL functions (infra/db/migrate.ts applies them after the migrations). */
export const functionsOf = (ms: readonly AppModule[] = modules): StoredFunction[] =>
  ms.flatMap((m) => m.functions ?? []);
