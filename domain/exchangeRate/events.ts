import { z } from 'zod';
import { instant, type EventsOf } from '../eventSchema.js';

/**
 * The official rate drives every bolivar amount customers pay, so each change is recorded in the log
 * with the admin who made it: `exchangerate-<currency>` holds one ExchangeRateSet per change, the
 * start-up seed's included (no admin: the setting OFFICIAL_RATE_VES or the development rate).
 */
export const exchangeRateStream = (currency: string): string => `exchangerate-${currency}`;

export const EXCHANGE_RATE_EVENTS = {
  ExchangeRateSet: z.object({
    currency: z.string(),
    /** Bolivars per USD, exactly as the admin gave it. */
    rate: z.string(),
    rateCents: z.int(),
    effectiveAt: instant,
    /** Null for the start-up seed (docs/decisions/0055). */
    adminId: z.int().nullable(),
  }),
};
export type ExchangeRateSet = EventsOf<typeof EXCHANGE_RATE_EVENTS>;
