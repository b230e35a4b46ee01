import { z } from 'zod';
import { instant, type EventsOf } from '../eventSchema.js';

/**
 * The official rate drives every bolivar amount customers pay, so each change is recorded in the log
 * with the admin who made it: `exchangerate-<currency>` holds one ExchangeRateSet per change.
 */
export const exchangeRateStream = (currency: string): string => `exchangerate-${currency}`;

export const EXCHANGE_RATE_EVENTS = {
  ExchangeRateSet: z.object({
    currency: z.string(),
    /** Bolivars per USD, exactly as the admin gave it. */
    rate: z.string(),
    rateCents: z.int(),
    effectiveAt: instant,
    adminId: z.int(),
  }),
};
export type ExchangeRateSet = EventsOf<typeof EXCHANGE_RATE_EVENTS>;
