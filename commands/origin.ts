import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Actor } from '../domain/actor.js';
import type { Db } from '../infra/db/database.js';
import type { EventMetadata } from '../infra/eventStore/port.js';

/**
 * Where the events a command appends come from: who asked (metadata), which event caused them (a process
 * manager's derived ids) and the ids a command mints before deciding (the domain mints none).
 */

/** Timers, process managers and other areas' reactions act as the system. */
export const SYSTEM: EventMetadata = { actor: { id: null, role: 'SYSTEM' } };

/**
 * A request's caller (none before sign-in or for a provider's
 * webhook) and request id, carried into the events it appends.
 */
export const metadataOf = (actor: Actor | null, requestId?: unknown): EventMetadata => ({
  ...(actor ? { actor: { id: actor.id, role: actor.role } } : {}),
  ...(typeof requestId === 'string' ? { correlationId: requestId } : {}),
});

/** What a reaction appends, caused by `cause`. */
export const causedBy = (cause: { eventId: string }): EventMetadata => ({ causationId: cause.eventId, ...SYSTEM });

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

/** The ids of a reaction's events, by index, for one purpose. */
export const derivedEventIds = (cause: { eventId: string }, purpose: string) => (index: number) =>
  derivedEventId(cause.eventId, `${purpose}/${index}`);

export type IdSequence =
  | 'order_id_seq'
  | 'offer_id_seq'
  | 'payment_id_seq'
  | 'surplus_listing_id_seq'
  | 'rating_id_seq'
  | 'incident_id_seq'
  | 'promotion_id_seq'
  | 'promotion_grant_id_seq'
  | 'receipt_id_seq'
  | 'receipt_line_id_seq'
  | 'payout_order_id_seq';

/**
 * The next id of a numbered aggregate or record (orders, offers, payments, surplus listings, ratings,
 * incidents, promotions and their grants, settlement receipts, their lines and payout orders).
 */
export const nextId = async (db: Db, sequence: IdSequence): Promise<number> => (await nextIds(db, sequence, 1))[0];

/** `count` ids at once (a receipt's lines), in one round trip. */
export const nextIds = async (db: Db, sequence: IdSequence, count: number): Promise<number[]> => {
  if (count === 0) return [];
  const { rows } = await sql<{
    id: number;
  }>`SELECT nextval(${sequence}::regclass) AS id FROM generate_series(1, ${count})`.execute(db);
  return rows.map((r) => Number(r.id));
};
