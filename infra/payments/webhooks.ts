import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/**
 * Provider webhooks (docs/domain-rules.md, payments and provider webhooks): HMAC-SHA256 of the raw body with
 * PAYMENT_WEBHOOK_SECRET, sent as `X-Signature: sha256=<hex>`.
 */
export const signWebhook = (rawBody: Buffer | string, secret: string): string =>
  `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;

/** Constant-time check of the header against the body's signature; any malformed header is a mismatch. */
export const isValidSignature = (rawBody: Buffer, header: string | undefined, secret: string): boolean => {
  if (!header) return false;
  const m = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  if (!m) return false;
  const given = Buffer.from(m[1].toLowerCase(), 'hex');
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
};

export const WebhookEvent = z.object({
  id: z.string().min(1).max(200),
  type: z.enum(['payment.confirmed', 'payment.failed']),
  data: z.object({
    reference: z.string().min(1).max(200),
    amount_cents: z.number().int().nonnegative(),
  }),
});
export type WebhookEvent = z.infer<typeof WebhookEvent>;

/** The event in a verified body, or null when it is not JSON or not an event. */
export const parseWebhookEvent = (rawBody: Buffer): WebhookEvent | null => {
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return null;
  }
  const parsed = WebhookEvent.safeParse(json);
  return parsed.success ? parsed.data : null;
};
