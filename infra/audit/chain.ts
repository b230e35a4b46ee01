import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * The hash chain of a money stream (docs/decisions/0051-hash-chain-and-anchors.md). An event's hash is
 * SHA-256, in lowercase hex, over the UTF-8 bytes of the RFC 8785 (JSON Canonicalization Scheme) text of
 *
 *   {"data": …, "eventId": …, "metadata": <metadata without hash and prevHash>, "position": <stream revision>,
 *    "prevHash": <the predecessor's hash, or null for revision 0>, "stream": …, "type": …}
 *
 * Everything in it is what the store keeps for the event, as stored (before any upcasting), so anyone holding
 * the stored events can recompute it. The two fields are kept in the event's own metadata.
 */
export interface ChainedEvent {
  stream: string;
  position: number;
  eventId: string;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
}

/** The metadata as hashed: what the event carries but the chain's own two fields. */
export const hashedMetadata = (metadata: Record<string, unknown>): Record<string, unknown> => {
  const { hash: _hash, prevHash: _prevHash, ...rest } = metadata;
  return rest;
};

/** The exact text that is hashed (exported so the decision record's example can be checked against it). */
export const canonicalText = (e: ChainedEvent, prevHash: string | null): string => {
  const text = canonicalize({
    stream: e.stream,
    position: e.position,
    eventId: e.eventId,
    type: e.type,
    data: e.data,
    metadata: hashedMetadata(e.metadata),
    prevHash,
  });
  if (text === undefined) throw new Error(`Event ${e.eventId} has no JSON form`);
  return text;
};

export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

export const hashOf = (e: ChainedEvent, prevHash: string | null): string => sha256Hex(canonicalText(e, prevHash));

export type ChainBreak =
  | 'position'
  | 'stream'
  | 'prevHash'
  | 'hash'
  | 'missingHash'
  | 'anchoredEventMissing'
  | 'anchoredHashDiffers'
  | 'anchorProof';

export interface ChainProblem {
  kind: ChainBreak;
  /** The stream revision of the first event that does not match (or the anchored one). */
  position: number;
  eventId: string | null;
  message: string;
}

export interface ChainCheck {
  /** The hash of each event as recomputed, by index: what follows chains to. */
  hashes: string[];
  problem: ChainProblem | null;
}

/**
 * Walks a stream's events in order and names the first that does not match: a revision out of place (one
 * deleted or two reordered), an event of another stream, a prevHash that is not its predecessor's hash, or
 * a stored hash that is not the hash of what is stored (its data, type or metadata changed). An event stored
 * before the chain existed carries no fields; its hash is still computed, so the first chained event commits
 * to it; once an event carries them, every later one must.
 */
export const checkChain = (stream: string, events: readonly ChainedEvent[]): ChainCheck => {
  const hashes: string[] = [];
  let prev: string | null = null;
  let chained = false;
  const fail = (kind: ChainBreak, e: ChainedEvent, message: string): ChainCheck => ({
    hashes,
    problem: { kind, position: e.position, eventId: e.eventId, message },
  });
  for (const [i, e] of events.entries()) {
    if (e.stream !== stream) return fail('stream', e, `event ${e.eventId} belongs to ${e.stream}, not ${stream}`);
    if (e.position !== i)
      return fail('position', e, `revision ${i} expected, found ${e.position}: an event is missing or out of order`);
    const hash = hashOf(e, prev);
    const stored = e.metadata.hash;
    if (stored === undefined && e.metadata.prevHash === undefined) {
      if (chained) return fail('missingHash', e, `revision ${i} carries no hash, after chained events`);
    } else {
      chained = true;
      if (e.metadata.prevHash !== prev)
        return fail('prevHash', e, `revision ${i}: prevHash is not the hash of revision ${i - 1}`);
      if (stored !== hash)
        return fail('hash', e, `revision ${i}: its hash does not match its content (data, type or metadata changed)`);
    }
    hashes.push(hash);
    prev = hash;
  }
  return { hashes, problem: null };
};
