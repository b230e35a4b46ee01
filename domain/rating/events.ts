import { z } from 'zod';
import { instant, type EventsOf } from '../eventSchema.js';

/**
 * One stream per rated order (`rating-<orderId>`): the stream's expected revision makes "one rating per
 * order" hold under concurrent requests. A rating is never edited, so its only event is the submission.
 */
export const RatingSubmittedData = z.object({
  ratingId: z.int(),
  orderId: z.int(),
  /** The order's customer (user id): the spec's from_user_id. */
  clientId: z.int(),
  /** The driver who delivered the order: the spec's to_driver_id. */
  driverId: z.int(),
  score: z.number(),
  tags: z.array(z.string()),
  comment: z.string().nullable(),
  ratedAt: instant,
});
export type RatingSubmittedData = z.infer<typeof RatingSubmittedData>;

export const RATING_EVENTS = { RatingSubmitted: RatingSubmittedData };
export type RatingEvent = EventsOf<typeof RATING_EVENTS>;

export const RATING_LIMITS = { minScore: 1, maxScore: 5, maxTags: 6, maxTagLength: 40, maxCommentLength: 500 } as const;

/** One stream per rated order: its expected revision lets exactly one of two racing ratings through. */
export const ratingStream = (orderId: number): string => `rating-${orderId}`;
