import { createHash } from 'node:crypto';

/**
 * The id of an event a process manager appends follows from the event that caused it (RFC 4122 version 5,
 * SHA-1 name-based), so a redelivered cause appends nothing: the store ignores an event id it already holds.
 */
const NAMESPACE = Buffer.from('9d3c1f0a6b2e4d7c8a5f0e1b2c3d4e5f', 'hex');

export const derivedEventId = (causeEventId: string, purpose: string): string => {
  const b = createHash('sha1').update(NAMESPACE).update(`${causeEventId}/${purpose}`, 'utf8').digest().subarray(0, 16);
  b[6] = (b[6] & 0x0f) | 0x50;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};
