import { forbidden, validationError } from '../errors.js';
import { PAYMENT_FORM, isCash, priceOrder, type Pricing } from '../pricing.js';
import type { BiddingStatus, OrderStatus } from './events.js';
import type { Offer, Order } from './order.js';

/** What the phases of an order share: its statuses and how an order is priced. */

export const isBidding = (status: OrderStatus): status is BiddingStatus => status === 'BROADCASTING' || status === 'COUNTER_OFFERED';
export const TERMINAL: readonly OrderStatus[] = ['DELIVERED', 'CANCELLED', 'EXPIRED'];
export const PAYMENT_METHOD_OPEN: readonly OrderStatus[] = ['BROADCASTING', 'COUNTER_OFFERED', 'WAITING_FOR_PAYMENT'];
export const DELIVERABLE: readonly OrderStatus[] = ['CONFIRMED', 'IN_PROGRESS', 'ARRIVED'];

export const pendingOffers = (s: Order): Offer[] => Object.values(s.offers).filter((o) => o.status === 'PENDING');

/** COUNTER_OFFERED while at least one pending offer names a price other than the published one. */
export const biddingStatus = (basePriceCents: number, pending: Offer[]): BiddingStatus =>
  pending.some((o) => o.offerPriceCents !== basePriceCents) ? 'COUNTER_OFFERED' : 'BROADCASTING';

export const assertAssignedDriver = (s: Order, driverId: number): void => {
  if (s.driverId !== driverId) throw forbidden('Forbidden', 'You are not the driver of this order.');
};

export const paymentFormIdFor = (paymentMethod: string, paymentFormId: number | null): number | null => {
  if (paymentMethod !== PAYMENT_FORM) return null;
  if (paymentFormId === null) throw validationError({ paymentFormId: ['The payment form is required for PAYMENT_FORM.'] });
  return paymentFormId;
};

/** Nothing is left to pay for cash (collected on delivery) or when credit covers the whole order. */
export const needsOnlinePayment = (pricing: Pricing): boolean => !isCash(pricing.paymentMethod) && !pricing.isFullyPromoted;

export const reprice = (s: Order, waterPriceCents: number, paymentMethod: string, creditAvailableCents: number): Pricing =>
  priceOrder({ waterPriceCents, paymentMethod, settings: s.pricingSettings, creditAvailableCents });
