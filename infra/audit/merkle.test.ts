import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { leafHash, merkleProof, merkleRoot, rootFromProof, sortedHeads, type StreamHead } from './merkle.js';

const heads = (n: number): StreamHead[] =>
  sortedHeads(
    Array.from({ length: n }, (_, i) => ({
      stream: `wallet-${i + 1}`,
      position: i,
      hash: createHash('sha256').update(String(i)).digest('hex'),
    })),
  );
const sha = (...hex: string[]) =>
  createHash('sha256')
    .update(Buffer.concat(hex.map((h) => Buffer.from(h, 'hex'))))
    .digest('hex');

describe('anchor Merkle tree (RFC 6962 shape)', () => {
  it('hashes a leaf as SHA-256 of 0x00 and the RFC 8785 text of the head, and two leaves under 0x01', () => {
    const [a, b] = heads(2);
    const text = `{"hash":"${a.hash}","position":${a.position},"stream":"${a.stream}"}`;
    expect(leafHash(a)).toBe(sha('00', Buffer.from(text).toString('hex')));
    expect(merkleRoot([a, b])).toBe(sha('01', leafHash(a), leafHash(b)));
  });

  it("leads every leaf's proof to the root, for trees of 1 to 13 leaves", () => {
    for (let n = 1; n <= 13; n++) {
      const hs = heads(n);
      const root = merkleRoot(hs);
      hs.forEach((h, i) => expect(rootFromProof(h, merkleProof(hs, i))).toBe(root));
    }
  });

  it('leads a changed head (another position or hash) elsewhere than the root', () => {
    const hs = heads(7);
    const root = merkleRoot(hs);
    const proof = merkleProof(hs, 3);
    expect(rootFromProof({ ...hs[3], position: 4 }, proof)).not.toBe(root);
    expect(rootFromProof({ ...hs[3], hash: hs[2].hash }, proof)).not.toBe(root);
    expect(rootFromProof(hs[2], proof)).not.toBe(root);
  });
});
