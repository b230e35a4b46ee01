import { z } from 'zod';
import type { Decider } from '../decider.js';
import { instant, type EventsOf } from '../eventSchema.js';
import { validationError } from '../errors.js';

/**
 * A plain admin's daily allowance of manual CREDIT adjustments (docs/decisions/0046-money-risk-limits.md).
 * The adjustments land in each customer's own credit stream, so no credit stream can see an admin's day:
 * each admin has one allowance stream per calendar day (settlement timezone) that an adjustment draws on
 * before it is booked. Drawing appends with the stream's expected revision, so of two concurrent
 * adjustments that together pass the cap one is refused; an adjustment that then fails gives its draw back.
 */
export const ALLOWANCE_EVENTS = {
  ManualCreditAllowanceDrawn: z.object({
    adminId: z.int(),
    /** The calendar day, yyyy-MM-dd in the settlement timezone. */
    day: z.string(),
    /** The id of the CreditAdjusted event it pays for: a repeat of the same adjustment draws nothing. */
    adjustmentId: z.string(),
    amountCents: z.int(),
    at: instant,
  }),
  ManualCreditAllowanceReturned: z.object({ adjustmentId: z.string(), at: instant }),
};
export type AllowanceEvent = EventsOf<typeof ALLOWANCE_EVENTS>;

export interface AllowanceState {
  /** Cents drawn by each adjustment of the day. */
  drawn: Record<string, number>;
}

/**
 * Drawn in the same append as the credit adjustment it allows, so an adjustment not booked draws nothing.
 * (ManualCreditAllowanceReturned, which an earlier design appended when the adjustment failed after the draw,
 * is still folded for the streams that hold it.)
 */
export interface AllowanceCommand {
  type: 'DrawAllowance';
  adminId: number;
  day: string;
  adjustmentId: string;
  amountCents: number;
  limitCents: number;
  at: string;
}

export const drawnCents = (s: AllowanceState): number => Object.values(s.drawn).reduce((sum, c) => sum + c, 0);

const usd = (cents: number): string => (cents / 100).toFixed(2);

export const allowanceDecider: Decider<AllowanceCommand, AllowanceState, AllowanceEvent> = {
  initialState: { drawn: {} },
  evolve: (s, e) => {
    const drawn = { ...s.drawn };
    if (e.type === 'ManualCreditAllowanceDrawn') drawn[e.data.adjustmentId] = e.data.amountCents;
    else delete drawn[e.data.adjustmentId];
    return { drawn };
  },
  decide: (c, s) => {
    if (c.adjustmentId in s.drawn) return [];
    const leftCents = Math.max(0, c.limitCents - drawnCents(s));
    if (c.amountCents > leftCents)
      throw validationError({
        amount: [
          `Beyond your daily allowance of manual credit: ${usd(leftCents)} USD left today ` +
            `(of ${usd(c.limitCents)} USD).`,
        ],
      });
    const { adminId, day, adjustmentId, amountCents, at } = c;
    return [{ type: 'ManualCreditAllowanceDrawn', data: { adminId, day, adjustmentId, amountCents, at } }];
  },
};

/** One stream per admin per calendar day. */
export const allowanceStream = (adminId: number, day: string): string => `creditAllowance-${adminId}-${day}`;
