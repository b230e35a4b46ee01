import { conflict, forbidden, notFound, validationError } from '../errors.js';
import { RATING_LIMITS, type RatingEvent, type RatingSubmittedData } from './events.js';

/** The rating of one order, once submitted. */
export type RatingState = RatingSubmittedData | null;
export const initialState: RatingState = null;

export const evolve = (_state: RatingState, event: RatingEvent): RatingState => {
  switch (event.type) {
    case 'RatingSubmitted':
      return event.data;
  }
};

/** The caller's part in the order, as the order area names it (commands/order/handlers.ts partyOf). */
export type OrderParty = 'CLIENT' | 'DRIVER' | 'BIDDER' | 'ADMIN' | null;

export interface RateDriver {
  type: 'RateDriver';
  ratingId: number;
  /** The order as its stream says now; null when it does not exist. */
  order: { id: number; clientId: number; driverId: number | null; status: string } | null;
  party: OrderParty;
  score: number;
  tags: string[];
  comment: string | null;
  now: Date;
}

const inputErrors = (cmd: RateDriver): Record<string, string[]> => {
  const errors: Record<string, string[]> = {};
  const { minScore, maxScore, maxTags, maxTagLength, maxCommentLength } = RATING_LIMITS;
  if (!Number.isInteger(cmd.score) || cmd.score < minScore || cmd.score > maxScore)
    errors.score = [`must be an integer from ${minScore} to ${maxScore}`];
  if (cmd.tags.length > maxTags) errors.tags = [`at most ${maxTags} tags`];
  else if (cmd.tags.some((t) => t.length === 0 || t.length > maxTagLength))
    errors.tags = [`each tag has 1 to ${maxTagLength} characters`];
  if (cmd.comment !== null && cmd.comment.length > maxCommentLength)
    errors.comment = [`at most ${maxCommentLength} characters`];
  return errors;
};

/**
 * Only the order's customer rates, once, and only a delivered order's driver. A caller with no part in
 * the order gets what an unknown order gets (404), so strangers learn nothing; other parties get 403.
 * An order without a driver is NoDriverAssigned before it is OrderNotDelivered: a delivered order always
 * has one, so the other order would never report it.
 */
export const decide = (cmd: RateDriver, state: RatingState): RatingEvent[] => {
  const { order } = cmd;
  if (order === null || cmd.party === null) throw notFound('OrderNotFound', 'Order not found.');
  if (cmd.party !== 'CLIENT') throw forbidden('Forbidden', 'Only the order’s customer may rate it.');
  const errors = inputErrors(cmd);
  if (Object.keys(errors).length > 0) throw validationError(errors);
  if (order.driverId === null) throw conflict('NoDriverAssigned', 'The order has no driver to rate.');
  if (order.status !== 'DELIVERED') throw conflict('OrderNotDelivered', 'Only a delivered order can be rated.');
  if (state !== null) throw conflict('AlreadyRated', 'This order has already been rated.');
  return [
    {
      type: 'RatingSubmitted',
      data: {
        ratingId: cmd.ratingId,
        orderId: order.id,
        clientId: order.clientId,
        driverId: order.driverId,
        score: cmd.score,
        tags: cmd.tags,
        comment: cmd.comment,
        ratedAt: cmd.now.toISOString(),
      },
    },
  ];
};

export const ratingDecider = { initialState, evolve, decide };
