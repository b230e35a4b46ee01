import type { AppModule } from '../context.js';
import { paymentMethodMigrations } from '../../stores/paymentMethods/paymentMethods.js';
import { paymentMethodRoutes } from '../../api/paymentMethods/routes.js';

/** The payment-method catalogue. */
export const paymentMethodsModule: AppModule = {
  name: 'paymentMethods',
  migrations: paymentMethodMigrations,
  routes: paymentMethodRoutes,
};
