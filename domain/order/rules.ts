import { forbidden, validationError } from '../errors.js';
import { PAYMENT_FORM, isCash, priceOrder, type Pricing } from '../pricing.js';
import { BIDDING_STATUSES, type BiddingStatus, type OrderStatus } from './events.js';
import type { Offer, Order } from './order.js';

/** What the phases of an order share: its statuses and how an order is priced. */

/**
 * The groups of statuses the rules speak of, named once: deciders, handlers, read-model queries (as `in`
 * lists), reports and views all test membership through these.
 */
export type StatusGroup = readonly [OrderStatus, ...OrderStatus[]];

/** Open to offers (the events that may only happen then name their status from the same list). */
export const BIDDING: StatusGroup = BIDDING_STATUSES;
/** Over: the order no longer occupies its client. */
export const TERMINAL: StatusGroup = ['DELIVERED', 'CANCELLED', 'EXPIRED'];
/** Over without a delivery (an intent that did not convert). */
export const UNDELIVERED_END: StatusGroup = ['CANCELLED', 'EXPIRED'];
/** Not over: the client's active order (one at a time). */
export const ACTIVE: StatusGroup = [
  'BROADCASTING',
  'COUNTER_OFFERED',
  'WAITING_FOR_PAYMENT',
  'CONFIRMED',
  'IN_PROGRESS',
  'ARRIVED',
];
/** A driver is assigned and the order is not over: it holds the driver (and the driver's liters). */
export const DRIVER_ASSIGNED: StatusGroup = ['WAITING_FOR_PAYMENT', 'CONFIRMED', 'IN_PROGRESS', 'ARRIVED'];
/** Paid or paid on delivery, not yet delivered: the driver may deliver, the client tracks it and sees the PIN. */
export const DELIVERABLE: StatusGroup = ['CONFIRMED', 'IN_PROGRESS', 'ARRIVED'];
/** Confirmed, delivered or not yet. */
export const CONFIRMED_ONWARD: StatusGroup = ['CONFIRMED', 'IN_PROGRESS', 'ARRIVED', 'DELIVERED'];
/** The driver is on the way or at the door. */
export const ON_TRIP: StatusGroup = ['IN_PROGRESS', 'ARRIVED'];
/** Until a payment is accepted the client may still change how to pay. */
export const PAYMENT_METHOD_OPEN: StatusGroup = ['BROADCASTING', 'COUNTER_OFFERED', 'WAITING_FOR_PAYMENT'];

export const isBidding = (status: OrderStatus): status is BiddingStatus => BIDDING.includes(status);

export const pendingOffers = (s: Order): Offer[] => Object.values(s.offers).filter((o) => o.status === 'PENDING');

/** COUNTER_OFFERED while at least one pending offer names a price other than the published one. */
export const biddingStatus = (basePriceCents: number, pending: Offer[]): BiddingStatus =>
  pending.some((o) => o.offerPriceCents !== basePriceCents) ? 'COUNTER_OFFERED' : 'BROADCASTING';

export const assertAssignedDriver = (s: Order, driverId: number): void => {
  if (s.driverId !== driverId) throw forbidden('Forbidden', 'You are not the driver of this order.');
};

export const paymentFormIdFor = (paymentMethod: string, paymentFormId: number | null): number | null => {
  if (paymentMethod !== PAYMENT_FORM) return null;
  if (paymentFormId === null)
    throw validationError({ paymentFormId: ['The payment form is required for PAYMENT_FORM.'] });
  return paymentFormId;
};

/** Nothing is left to pay for cash (collected on delivery) or when credit covers the whole order. */
export const needsOnlinePayment = (pricing: Pricing): boolean =>
  !isCash(pricing.paymentMethod) && !pricing.isFullyPromoted;

export const reprice = (
  s: Order,
  waterPriceCents: number,
  paymentMethod: string,
  creditAvailableCents: number,
): Pricing => priceOrder({ waterPriceCents, paymentMethod, settings: s.pricingSettings, creditAvailableCents });
