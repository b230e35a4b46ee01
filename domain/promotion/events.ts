import { z } from 'zod';
import { CREDIT_BUCKETS } from '../credit/events.js';
import { instant, type EventsOf } from '../eventSchema.js';
import { AUDIENCES, MILESTONE_BASES } from './promotion.js';

/**
 * One stream per campaign (`promotion-<id>`): the admin's edits and every grant land on it, so the cap,
 * the frozen terms and the delete block are decided on one state and serialised by the stream's version.
 */
export const PromotionTerms = z.object({
  name: z.string(),
  description: z.string().nullable(),
  audience: z.enum(AUDIENCES),
  creditScope: z.enum(CREDIT_BUCKETS).nullable(),
  milestoneOrders: z.number(),
  milestoneBasis: z.enum(MILESTONE_BASES),
  amountCents: z.int(),
  cityId: z.int().nullable(),
  startsAt: instant.nullable(),
  endsAt: instant.nullable(),
  maxGrants: z.number().nullable(),
  active: z.boolean(),
});
export type PromotionTerms = z.infer<typeof PromotionTerms>;

export const PromotionCreatedData = z.object({
  promotionId: z.int(),
  terms: PromotionTerms,
  createdAt: instant,
});
export type PromotionCreatedData = z.infer<typeof PromotionCreatedData>;

/** Only the terms the admin sent. */
export const PromotionUpdatedData = z.object({
  promotionId: z.int(),
  changes: PromotionTerms.partial(),
  updatedAt: instant,
});
export type PromotionUpdatedData = z.infer<typeof PromotionUpdatedData>;

export const PromotionDeletedData = z.object({
  promotionId: z.int(),
  deletedAt: instant,
});
export type PromotionDeletedData = z.infer<typeof PromotionDeletedData>;

/**
 * A recipient reached the milestone: the grant, once per campaign and recipient. The money moves on the
 * recipient's own stream (a client's credit, a driver's wallet), in reaction to this event.
 */
export const PromotionGrantedData = z.object({
  promotionId: z.int(),
  grantId: z.int(),
  audience: z.enum(AUDIENCES),
  /** The client's user id, or the driver's user id for a DRIVER campaign. */
  userId: z.int(),
  /** The wallet a DRIVER campaign pays into; null for clients. */
  driverId: z.int().nullable(),
  /** The delivery that reached the milestone. */
  orderId: z.int(),
  creditScope: z.enum(CREDIT_BUCKETS).nullable(),
  amountCents: z.int(),
  grantedAt: instant,
});
export type PromotionGrantedData = z.infer<typeof PromotionGrantedData>;

export const PROMOTION_EVENTS = {
  PromotionCreated: PromotionCreatedData,
  PromotionUpdated: PromotionUpdatedData,
  PromotionDeleted: PromotionDeletedData,
  PromotionGranted: PromotionGrantedData,
};
export type PromotionEvent = EventsOf<typeof PROMOTION_EVENTS>;

export const promotionStream = (promotionId: number): string => `promotion-${promotionId}`;
