import { z } from 'zod';
import { creditStream } from '../credit/events.js';
import { instant, type EventsOf } from '../eventSchema.js';
import { paymentStream } from '../payment/events.js';
import { receiptStream } from '../settlement/events.js';
import { walletStream } from '../wallet/events.js';

/**
 * The money streams are hash chains (docs/decisions/0051-hash-chain-and-anchors.md): receipts, driver wallets,
 * customer credit and payments. A category is a stream id up to its first dash.
 */
export const CHAINED_CATEGORIES: readonly string[] = [
  receiptStream('r'),
  walletStream(1),
  creditStream(1),
  paymentStream(1),
].map((s) => s.slice(0, s.indexOf('-')));

/**
 * An anchor: the Merkle root over the head of every money stream at one moment. The daily one is
 * `auditanchor-<YYYY-MM-DD>` (the settlement timezone's day), so two schedulers record it once; one taken on
 * demand is `auditanchor-<uuid>`.
 */
export const anchorStream = (anchorId: string): string => `auditanchor-${anchorId}`;
export const ANCHOR_CATEGORY = 'auditanchor';

const Head = z.object({
  stream: z.string(),
  position: z.int().nonnegative(),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
});

const Hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const AnchorKind = z.enum(['DAILY', 'ON_DEMAND']);

export const AUDIT_EVENTS = {
  AuditAnchorRecorded: z.object({
    anchorId: z.string(),
    kind: AnchorKind,
    takenAt: instant,
    root: Hex64,
    /** Every money stream's head, sorted by stream id: the tree's leaves in order. */
    heads: z.array(Head),
    /**
     * The anchor this one extends (docs/decisions/0071): every head it holds was found unchanged when this
     * one was taken. Null for the first anchor; absent from anchors recorded before anchors chained.
     */
    previous: z.object({ anchorId: z.string(), root: Hex64 }).nullable().optional(),
  }),
  /**
   * An anchor refused because the log no longer extends the previous anchor: a head it holds is gone or
   * changed. Recorded on the stream the anchor would have had, so the day's anchor is not tried again.
   */
  AuditAnchorRefused: z.object({
    anchorId: z.string(),
    kind: AnchorKind,
    refusedAt: instant,
    previous: z.object({ anchorId: z.string(), root: Hex64 }),
    /** The first streams found not to extend it (at most a few), each with the revision that differs. */
    problems: z.array(
      z.object({ stream: z.string(), position: z.int().nonnegative(), kind: z.string(), message: z.string() }),
    ),
    /** How many streams did not extend it in all. */
    streams: z.int().positive(),
  }),
};
export type AuditEvent = EventsOf<typeof AUDIT_EVENTS>;
