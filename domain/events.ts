import { ALLOWANCE_EVENTS } from './credit/allowance.js';
import { AUDIT_EVENTS } from './audit/events.js';
import { CREDIT_EVENTS } from './credit/events.js';
import { DRIVER_EVENTS } from './driver/events.js';
import type { EventSchemas } from './eventSchema.js';
import { EXCHANGE_RATE_EVENTS } from './exchangeRate/events.js';
import { INCIDENT_EVENTS } from './incident/events.js';
import { NOTIFICATION_EVENTS } from './notification/events.js';
import { ORDER_EVENTS, SLOT_EVENTS } from './order/events.js';
import { ORDER_PAYMENTS_EVENTS, PAYMENT_EVENTS } from './payment/events.js';
import { PROMOTION_EVENTS } from './promotion/events.js';
import { RATING_EVENTS } from './rating/events.js';
import { CONFIG_EVENTS } from './settlement/config.js';
import { PAYEE_EVENTS, POOL_EVENTS, RECEIPT_EVENTS } from './settlement/events.js';
import { SURPLUS_EVENTS } from './surplus/events.js';
import { WALLET_EVENTS } from './wallet/events.js';

/**
 * Every event type the service writes, with the schema of its data today. The event store refuses, outside
 * production, an event whose type is missing here or whose data does not match
 * (docs/decisions/0041-event-schemas-and-versions.md).
 */
export const EVENT_SCHEMAS: EventSchemas = {};
for (const module of [
  ORDER_EVENTS,
  SLOT_EVENTS,
  PAYMENT_EVENTS,
  ORDER_PAYMENTS_EVENTS,
  CREDIT_EVENTS,
  ALLOWANCE_EVENTS,
  DRIVER_EVENTS,
  WALLET_EVENTS,
  RECEIPT_EVENTS,
  POOL_EVENTS,
  PAYEE_EVENTS,
  CONFIG_EVENTS,
  PROMOTION_EVENTS,
  SURPLUS_EVENTS,
  RATING_EVENTS,
  INCIDENT_EVENTS,
  NOTIFICATION_EVENTS,
  EXCHANGE_RATE_EVENTS,
  AUDIT_EVENTS,
] as EventSchemas[]) {
  for (const [type, schema] of Object.entries(module)) {
    // A type named twice would take one module's schema silently: every stored event has one meaning.
    if (type in EVENT_SCHEMAS) throw new Error(`Event type ${type} has two schemas`);
    EVENT_SCHEMAS[type] = schema;
  }
}
