import type { CreditBucket } from '../credit/events.js';
import type { DomainEvent } from '../decider.js';
import type { Audience, MilestoneBasis } from './promotion.js';

/**
 * One stream per campaign (`promotion-<id>`): the admin's edits and every grant land on it, so the cap,
 * the frozen terms and the delete block are decided on one state and serialised by the stream's version.
 */
export interface PromotionTerms {
  name: string;
  description: string | null;
  audience: Audience;
  creditScope: CreditBucket | null;
  milestoneOrders: number;
  milestoneBasis: MilestoneBasis;
  amountCents: number;
  cityId: number | null;
  startsAt: string | null;
  endsAt: string | null;
  maxGrants: number | null;
  active: boolean;
}

export interface PromotionCreatedData {
  promotionId: number;
  terms: PromotionTerms;
  createdAt: string;
}

/** Only the terms the admin sent. */
export interface PromotionUpdatedData {
  promotionId: number;
  changes: Partial<PromotionTerms>;
  updatedAt: string;
}

export interface PromotionDeletedData {
  promotionId: number;
  deletedAt: string;
}

/**
 * A recipient reached the milestone: the grant, once per campaign and recipient. The money moves on the
 * recipient's own stream (a client's credit, a driver's wallet), in reaction to this event.
 */
export interface PromotionGrantedData {
  promotionId: number;
  grantId: number;
  audience: Audience;
  /** The client's user id, or the driver's user id for a DRIVER campaign. */
  userId: number;
  /** The wallet a DRIVER campaign pays into; null for clients. */
  driverId: number | null;
  /** The delivery that reached the milestone. */
  orderId: number;
  creditScope: CreditBucket | null;
  amountCents: number;
  grantedAt: string;
}

export type PromotionCreated = DomainEvent<'PromotionCreated', PromotionCreatedData>;
export type PromotionUpdated = DomainEvent<'PromotionUpdated', PromotionUpdatedData>;
export type PromotionDeleted = DomainEvent<'PromotionDeleted', PromotionDeletedData>;
export type PromotionGranted = DomainEvent<'PromotionGranted', PromotionGrantedData>;

export type PromotionEvent = PromotionCreated | PromotionUpdated | PromotionDeleted | PromotionGranted;

export const promotionStream = (promotionId: number): string => `promotion-${promotionId}`;
