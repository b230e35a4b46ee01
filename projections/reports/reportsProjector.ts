import { projector } from '../projector.js';
import { calendarHandlers, counted } from './dailyRollup.js';
import { driverRowHandlers } from './driverRowHandlers.js';
import { orderRowHandlers } from './orderRowHandlers.js';

/**
 * The order events that change a figure or a key report_daily sums (dailyRollup.ts): status, driver,
 * acceptance, prices, liters, minutes, rating, incidents. The others (offers placed or withdrawn, payment
 * attempts, trip steps) move no bucket.
 */
const COUNTED = ['OrderCreated', 'OfferAccepted', 'PaymentMethodChanged', 'OrderDelivered', 'OrderCancelled', 'OrderExpired', 'RatingSubmitted', 'IncidentReported'];

/**
 * One projector for every report table: incidents and ratings find an order's driver in report_orders,
 * order events update report_drivers, and report_daily sums report_orders, so all must see the log in
 * one order.
 */
export const reportsProjector = projector('reports', {
  // Each counted order event also moves the daily roll-ups (six statements): only report readers wait for it.
  settledOnRead: true,
  tables: ['report_orders', 'report_order_offers', 'report_drivers', 'report_driver_documents', 'report_daily', 'report_daily_drivers', 'report_driver_running', 'report_driver_cities', 'report_calendar'],
  handlers: {
    ...orderRowHandlers,
    ...Object.fromEntries(COUNTED.map((type) => [type, counted(orderRowHandlers[type])])),
    ...driverRowHandlers,
    ...calendarHandlers,
  },
});
