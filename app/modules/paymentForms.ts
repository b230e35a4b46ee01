import type { AppModule } from '../context.js';
import { paymentFormMigrations } from '../../stores/paymentForms/paymentForms.js';
import { paymentFormRoutes } from '../../api/paymentForms/routes.js';

/** Manual payment forms. */
export const paymentFormsModule: AppModule = {
  name: 'paymentForms',
  migrations: paymentFormMigrations,
  routes: paymentFormRoutes,
};
