import type { PromotionTerms } from '../../domain/promotion/events.js';

/** A running CLIENT campaign with no window, cap or city: each test states only the terms it is about. */
export const sampleTerms = (over: Partial<PromotionTerms> = {}): PromotionTerms => ({
  name: 'Hito',
  description: null,
  audience: 'CLIENT',
  creditScope: 'ORDERS',
  milestoneOrders: 2,
  milestoneBasis: 'LIFETIME',
  amountCents: 500,
  cityId: null,
  startsAt: null,
  endsAt: null,
  maxGrants: null,
  active: true,
  ...over,
});
