import type { AppModule } from '../context.js';
import { bankAccountMigrations } from '../../stores/customers/bankAccounts.js';
import { adminCustomerRoutes } from '../../api/admin/customers/routes.js';

/**
 * Back-office customers and their saved bank account. The credit adjust and history routes beside them
 * (creditRoutes.ts) are registered by the orders module, which owns customer credit.
 */
export const customersModule: AppModule = {
  name: 'customers',
  migrations: bankAccountMigrations,
  routes: adminCustomerRoutes,
};
