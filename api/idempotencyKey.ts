import type { Request } from 'express';
import { z } from 'zod';

/**
 * The optional `Idempotency-Key` request header of booking routes: the same key from the same admin within
 * 24 hours answers the first request's result and books nothing more (commands/idempotency.ts).
 */
export const IdempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
    .optional()
    .openapi({
      description:
        'Any client-chosen string (a UUID, say). Repeating the same key within 24 ' +
        'hours, as the same admin, answers the first result and books nothing more.',
    }),
});

export const idempotencyKeyOf = (req: Request): string | undefined => req.get('idempotency-key');
