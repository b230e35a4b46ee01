import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * The Merkle tree of an anchor (docs/decisions/0051-hash-chain-and-anchors.md), shaped as RFC 6962's (Certificate
 * Transparency): leaves in the anchor's order (stream ids sorted), a leaf hashed as SHA-256(0x00 ‖ bytes), a node
 * as SHA-256(0x01 ‖ left ‖ right), a range of n > 1 leaves split after the largest power of two below n. A leaf's
 * bytes are the UTF-8 of the RFC 8785 text of {"hash", "position", "stream"}: the head of one money stream.
 */
export interface StreamHead {
  stream: string;
  position: number;
  hash: string;
}

export interface ProofStep {
  /** Where the sibling sits: its hash goes on this side of the running hash. */
  side: 'left' | 'right';
  hash: string;
}

const sha256 = (...parts: Buffer[]): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const LEAF = Buffer.from([0]);
const NODE = Buffer.from([1]);

export const leafHash = (head: StreamHead): string =>
  sha256(
    LEAF,
    Buffer.from(canonicalize({ stream: head.stream, position: head.position, hash: head.hash })!, 'utf8'),
  ).toString('hex');

const node = (left: string, right: string): string =>
  sha256(NODE, Buffer.from(left, 'hex'), Buffer.from(right, 'hex')).toString('hex');

const splitOf = (n: number): number => {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
};

const rootOfHashes = (hashes: readonly string[]): string => {
  if (hashes.length === 0) return sha256().toString('hex');
  if (hashes.length === 1) return hashes[0];
  const k = splitOf(hashes.length);
  return node(rootOfHashes(hashes.slice(0, k)), rootOfHashes(hashes.slice(k)));
};

/** The heads in the order an anchor commits to them: by stream id, UTF-16 code units (as RFC 8785 sorts keys). */
export const sortedHeads = (heads: readonly StreamHead[]): StreamHead[] =>
  [...heads].sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0));

export const merkleRoot = (heads: readonly StreamHead[]): string => rootOfHashes(heads.map(leafHash));

/** The audit path of leaf `index`, from the leaf up. */
export const merkleProof = (heads: readonly StreamHead[], index: number): ProofStep[] => {
  const path = (hashes: string[], i: number): ProofStep[] => {
    if (hashes.length <= 1) return [];
    const k = splitOf(hashes.length);
    return i < k
      ? [...path(hashes.slice(0, k), i), { side: 'right', hash: rootOfHashes(hashes.slice(k)) }]
      : [...path(hashes.slice(k), i - k), { side: 'left', hash: rootOfHashes(hashes.slice(0, k)) }];
  };
  return path(heads.map(leafHash), index);
};

/** The root a leaf and its audit path lead to. */
export const rootFromProof = (head: StreamHead, proof: readonly ProofStep[]): string =>
  proof.reduce((acc, step) => (step.side === 'left' ? node(step.hash, acc) : node(acc, step.hash)), leafHash(head));
