import { projector } from '../projector.js';
import { applyWithRollups, calendarHandlers } from './dailyRollup.js';
import { driverRowHandlers } from './driverRowHandlers.js';
import { orderRowHandlers } from './orderRowHandlers.js';

/**
 * The order events that change a figure or a key report_daily sums (dailyRollup.ts): status, driver,
 * acceptance, prices, liters, minutes, rating, incidents. The others (offers placed or withdrawn, payment
 * attempts, trip steps) move no bucket.
 */
const COUNTED = new Set([
  'OrderCreated',
  'OfferAccepted',
  'PaymentMethodChanged',
  'OrderDelivered',
  'OrderCancelled',
  'OrderExpired',
  'RatingSubmitted',
  'IncidentReported',
]);

/**
 * One projector for every report table: incidents and ratings find an order's driver in report_orders,
 * order events update report_drivers, and report_daily sums report_orders, so all must see the log in
 * one order.
 */
const handlers = { ...orderRowHandlers, ...driverRowHandlers, ...calendarHandlers };

export const reportsProjector = projector('reports', {
  // Writes never wait for the reports; their readers wait for them to reach the head of the log.
  settledOnRead: true,
  tables: [
    'report_orders',
    'report_order_offers',
    'report_drivers',
    'report_driver_documents',
    'report_daily',
    'report_daily_drivers',
    'report_driver_running',
    'report_driver_cities',
    'report_calendar',
  ],
  handlers,
  // The roll-ups move once per batch, set-based, never per event.
  applyBatch: applyWithRollups(handlers, COUNTED),
});
