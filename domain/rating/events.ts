import type { DomainEvent } from '../decider.js';

/**
 * One stream per rated order (`rating-<orderId>`): the stream's expected revision makes "one rating per
 * order" hold under concurrent requests. A rating is never edited, so its only event is the submission.
 */
export interface RatingSubmittedData {
  ratingId: number;
  orderId: number;
  /** The order's customer (user id): the spec's from_user_id. */
  clientId: number;
  /** The driver who delivered the order: the spec's to_driver_id. */
  driverId: number;
  score: number;
  tags: string[];
  comment: string | null;
  ratedAt: string;
}

export type RatingEvent = DomainEvent<'RatingSubmitted', RatingSubmittedData>;

export const RATING_LIMITS = { minScore: 1, maxScore: 5, maxTags: 6, maxTagLength: 40, maxCommentLength: 500 } as const;

/** One stream per rated order: its expected revision lets exactly one of two racing ratings through. */
export const ratingStream = (orderId: number): string => `rating-${orderId}`;
