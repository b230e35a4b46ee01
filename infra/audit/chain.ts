import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { RecordedEvent } from '../eventStore/port.js';

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

/** A stored event as the chain sees it. */
export const chainedOf = (e: RecordedEvent): ChainedEvent => ({
  stream: e.streamId,
  position: e.streamPosition,
  eventId: e.eventId,
  type: e.type,
  data: e.data,
  metadata: e.metadata,
});

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
export const checkChain = (
  stream: string,
  events: readonly ChainedEvent[],
  start: { position: number; prevHash: string | null } = { position: 0, prevHash: null },
): ChainCheck => {
  const hashes: string[] = [];
  let prev: string | null = start.prevHash;
  let chained = prev !== null;
  const fail = (kind: ChainBreak, e: ChainedEvent, message: string): ChainCheck => ({
    hashes,
    problem: { kind, position: e.position, eventId: e.eventId, message },
  });
  for (const [i, e] of events.entries()) {
    if (e.stream !== stream) return fail('stream', e, `event ${e.eventId} belongs to ${e.stream}, not ${stream}`);
    const at = start.position + i;
    if (e.position !== at)
      return fail('position', e, `revision ${at} expected, found ${e.position}: an event is missing or out of order`);
    const hash = hashOf(e, prev);
    const stored = e.metadata.hash;
    if (stored === undefined && e.metadata.prevHash === undefined) {
      if (chained) return fail('missingHash', e, `revision ${at} carries no hash, after chained events`);
    } else {
      chained = true;
      if (e.metadata.prevHash !== prev)
        return fail('prevHash', e, `revision ${at}: prevHash is not the hash of revision ${at - 1}`);
      if (stored !== hash)
        return fail('hash', e, `revision ${at}: its hash does not match its content (data, type or metadata changed)`);
    }
    hashes.push(hash);
    prev = hash;
  }
  return { hashes, problem: null };
};

/**
 * Whether a stream as stored still extends the head an anchor holds (docs/decisions/0071): the event at the
 * anchored revision hashes to the anchored hash, and every event after it chains from there. `events` start
 * at the anchored revision when that event carries its hash (its prevHash is then taken as stored: the
 * anchored hash commits to it, so a rewrite at or before the anchored revision, hashes recomputed or not,
 * changes that event's hash), else at revision 0 (a stream stored before the chain: all of it is hashed).
 * The hashes answered are those of `events`.
 */
export const checkExtension = (
  stream: string,
  events: readonly ChainedEvent[],
  anchored: { position: number; hash: string },
): ChainCheck => {
  const first = events[0];
  const fromStart = first === undefined || first.position === 0;
  if (!fromStart && typeof first.metadata.hash !== 'string')
    throw new Error(`${stream}: an extension read from revision ${first.position} needs that event's hash`);
  const prevHash = fromStart ? null : first.metadata.prevHash;
  const from = {
    position: fromStart ? 0 : first.position,
    prevHash: typeof prevHash === 'string' ? prevHash : null,
  };
  const check = checkChain(stream, events, from);
  if (check.problem) return check;
  const at = anchored.position - from.position;
  const problem = (kind: ChainBreak, message: string): ChainCheck => ({
    hashes: check.hashes,
    problem: { kind, position: anchored.position, eventId: events[at]?.eventId ?? null, message },
  });
  if (at < 0 || at >= check.hashes.length)
    return problem('anchoredEventMissing', `revision ${anchored.position}, which an anchor holds, is gone`);
  if (check.hashes[at] !== anchored.hash)
    return problem(
      'anchoredHashDiffers',
      `revision ${anchored.position} is not the event the anchor holds: a revision at or before it was rewritten`,
    );
  return check;
};
