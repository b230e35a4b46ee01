import type { AppModule } from '../context.js';
import { startOrderReactions } from '../../commands/order/reactions.js';
import { orderTimersJob } from '../../commands/order/timers.js';
import { creditViewMigrations, creditViewsProjector } from '../../projections/credit/creditViews.js';
import { orderViewMigrations } from '../../projections/orders/orderTables.js';
import { orderViewsProjector } from '../../projections/orders/orderViews.js';
import { adminCustomerCreditRoutes } from '../../api/admin/customers/creditRoutes.js';
import { creditRoutes } from '../../api/credit/routes.js';
import { driverOrderRoutes } from '../../api/driverOrders/routes.js';
import { offerRoutes } from '../../api/offers/routes.js';
import { orderRoutes } from '../../api/orders/routes.js';

/** Orders, offers, delivery and customer credit (issue #4). */
export const ordersModule: AppModule = {
  name: 'orders',
  migrations: { ...orderViewMigrations, ...creditViewMigrations },
  projectors: [orderViewsProjector, creditViewsProjector],
  init(ctx) {
    ctx.scheduler.register(orderTimersJob(ctx));
    startOrderReactions(ctx);
  },
  routes(ctx, router) {
    // Fixed paths (/orders/active, /orders/offers/…) before /orders/:orderId.
    offerRoutes(ctx, router);
    orderRoutes(ctx, router);
    driverOrderRoutes(ctx, router);
    creditRoutes(ctx, router);
    adminCustomerCreditRoutes(ctx, router);
  },
};
