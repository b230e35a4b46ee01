import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/** Opaque bearer and one-time mail tokens: 256 random bits, URL-safe. */
export const newOpaqueToken = (): string => randomBytes(32).toString('base64url');

/** Tokens are stored only as this hash: a leaked table grants nothing. */
export const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

export const newOtpCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');

/**
 * A 6-digit code has only a million values, so a plain hash would be reversed at once: it is keyed with
 * the server secret and bound to the phone.
 */
export const otpHash = (secret: string, phone: string, code: string): string =>
  createHmac('sha256', secret).update(`${phone}:${code}`).digest('hex');

export const sameHash = (a: string, b: string): boolean =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
