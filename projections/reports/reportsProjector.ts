import { projector } from '../projector.js';
import { driverRowHandlers } from './driverRowHandlers.js';
import { orderRowHandlers } from './orderRowHandlers.js';

/**
 * One projector for every report table: incidents and ratings find an order's driver in report_orders,
 * and order events update report_drivers, so both must see the log in one order.
 */
export const reportsProjector = projector('reports', {
  tables: ['report_orders', 'report_order_offers', 'report_drivers', 'report_driver_documents'],
  handlers: { ...orderRowHandlers, ...driverRowHandlers },
});
