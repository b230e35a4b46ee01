import { createHash } from 'node:crypto';

/** Our own namespace for name-based notification ids (any fixed UUID works; this one must never change). */
export const NOTIFICATION_NAMESPACE = '3f6d2a4e-8c1b-4e5f-9a07-6b2c1d0e9f48';

/** RFC 4122 version 5 (SHA-1, name-based) UUID: the same namespace and name always give the same id. */
export const uuidV5 = (name: string, namespace: string): string => {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const b = createHash('sha1').update(ns).update(name, 'utf8').digest().subarray(0, 16);
  b[6] = (b[6] & 0x0f) | 0x50;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/**
 * A notification's id follows from the event that caused it, its recipient and its type, so replaying the
 * log (a rebuild, a retried batch) writes the same rows again instead of duplicates.
 */
export const notificationIdFor = (eventId: string, userId: number, type: string): string =>
  uuidV5(`${eventId}/${userId}/${type}`, NOTIFICATION_NAMESPACE);
