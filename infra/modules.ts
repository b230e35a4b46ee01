import type { Migration } from 'kysely';
import type { AppModule } from './context.js';
import { eventStoreMigrations } from './eventStore/migrations.js';
import { projectionRunnerMigrations } from '../projections/migrations.js';
import { inlineProjectionMigrations } from '../projections/inline.js';
import { devOutboxMigrations } from './outbox/devOutbox.js';
import { processManagerMigrations } from '../commands/processManager.js';
import { devRoutes } from '../api/dev/routes.js';
import { notificationsModule } from '../api/notifications/module.js';
import { deviceTokensModule } from '../api/deviceTokens/module.js';
import { identityModule } from '../api/identity/module.js';
import { exchangeRatesModule } from '../api/exchangeRates/module.js';
import { paymentMethodsModule } from '../api/paymentMethods/module.js';
import { paymentFormsModule } from '../api/paymentForms/module.js';
import { billingModule } from '../api/billing/module.js';
import { ordersModule } from '../api/orders/module.js';
import { paymentsModule } from '../api/payments/module.js';
import { ratingsModule } from '../api/ratings/module.js';
import { incidentsModule } from '../api/incidents/module.js';
import { chatModule } from '../api/chat/module.js';
import { stationsModule } from '../api/stations/module.js';
import { geocodingModule } from '../api/geocoding/module.js';
import { surplusModule } from '../api/surplus/module.js';
import { customersModule } from '../api/admin/customers/module.js';
import { promotionsModule } from '../api/admin/promotions/module.js';
// wallet (#10)
import { walletModule } from '../api/wallet/module.js';
// settlement (#11)
import { settlementModule } from '../api/admin/settlements/module.js';
// Reports (#12)
import { reportsModule } from '../api/admin/reports/module.js';

/** Every area of the service, in the order their init runs. Add a module here to wire it in. */
export const modules: AppModule[] = [
  { name: 'core', migrations: { ...eventStoreMigrations, ...projectionRunnerMigrations, ...inlineProjectionMigrations, ...devOutboxMigrations, ...processManagerMigrations }, routes: devRoutes },
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
];

/** Every module's migrations in one set, as the service, the CLIs and the test templates run them. */
export const migrationsOf = (ms: readonly AppModule[] = modules): Record<string, Migration> => Object.assign({}, ...ms.map((m) => m.migrations ?? {}));
