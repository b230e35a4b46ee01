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

export const AUDIT_EVENTS = {
  AuditAnchorRecorded: z.object({
    anchorId: z.string(),
    kind: z.enum(['DAILY', 'ON_DEMAND']),
    takenAt: instant,
    root: z.string().regex(/^[0-9a-f]{64}$/),
    /** Every money stream's head, sorted by stream id: the tree's leaves in order. */
    heads: z.array(Head),
  }),
};
export type AuditEvent = EventsOf<typeof AUDIT_EVENTS>;
