import { describe, expect, it } from 'vitest';
import { hashOf } from './chain.js';
import { EXPORT_FORMAT, exportLines, verifyExport, type ExportEvent, type ExportHeader } from './exportFile.js';
import { merkleProof, merkleRoot, sortedHeads } from './merkle.js';

const header: ExportHeader = {
  kind: 'stream',
  format: EXPORT_FORMAT,
  stream: 'credit-5',
  exportedAt: '2026-11-26T00:00:00Z',
};
/** A chained stream of n events, as the store chains it; `data` picks each event's content. */
const events = (n: number, data = (i: number): unknown => ({ i })): ExportEvent[] => {
  let prev: string | null = null;
  return Array.from({ length: n }, (_, i) => {
    const e = {
      stream: 'credit-5',
      position: i,
      eventId: `e${i}`,
      type: 'CreditAdjusted',
      data: data(i),
      metadata: {},
    };
    const hash = hashOf(e, prev);
    const out: ExportEvent = {
      ...e,
      kind: 'event',
      metadata: { prevHash: prev, hash },
      globalPosition: 10 + i,
      recordedAt: '2026-11-26T00:00:00Z',
    };
    prev = hash;
    return out;
  });
};

describe('export file', () => {
  const evs = events(3);
  const heads = sortedHeads([
    { stream: 'credit-5', position: 2, hash: evs[2].metadata.hash as string },
    { stream: 'wallet-1', position: 0, hash: 'a'.repeat(64) },
    { stream: 'credit-4', position: 7, hash: 'b'.repeat(64) },
  ]);
  const index = heads.findIndex((h) => h.stream === 'credit-5');
  const anchor = {
    kind: 'anchor' as const,
    anchorId: '2026-11-26',
    takenAt: '2026-11-26T04:00:00Z',
    root: merkleRoot(heads),
    leafCount: 3,
    leafIndex: index,
    leaf: heads[index],
    proof: merkleProof(heads, index),
  };

  it('verifies the chain and the anchor, and the published root when given', () => {
    const text = exportLines(header, evs, [anchor]).join('\n');
    expect(verifyExport(text, anchor.root)).toMatchObject({ problem: null, anchor: { position: 2 } });
    expect(verifyExport(text, 'c'.repeat(64)).problem).toMatchObject({ kind: 'anchorProof' });
  });

  it('refuses a cut file: no event, or no anchor when a published root is given', () => {
    expect(verifyExport(exportLines(header, [], []).join('\n')).problem).toMatchObject({ kind: 'format' });
    expect(verifyExport(exportLines(header, evs, []).join('\n'), anchor.root).problem).toMatchObject({
      kind: 'format',
    });
    expect(verifyExport('not json').problem).toMatchObject({ kind: 'format' });
  });

  it("refuses an anchor whose proof was taken from another stream's leaf", () => {
    const other = heads.findIndex((h) => h.stream === 'wallet-1');
    const forged = { ...anchor, leaf: { ...heads[index] }, proof: merkleProof(heads, other) };
    expect(verifyExport(exportLines(header, evs, [forged]).join('\n')).problem).toMatchObject({ kind: 'anchorProof' });
  });

  /** An anchor over credit-5's head at `position` and another stream's. */
  const anchorAt = (position: number, anchorId: string) => {
    const leaves = sortedHeads([
      { stream: 'credit-5', position, hash: evs[position].metadata.hash as string },
      { stream: 'wallet-1', position: 0, hash: 'a'.repeat(64) },
    ]);
    const i = leaves.findIndex((h) => h.stream === 'credit-5');
    return {
      ...anchor,
      anchorId,
      root: merkleRoot(leaves),
      leafCount: 2,
      leafIndex: i,
      leaf: leaves[i],
      proof: merkleProof(leaves, i),
    };
  };

  it('names the rewritten revisions when the hashes were recomputed, against the latest or an earlier root', () => {
    const [first, second] = [anchorAt(0, 'first'), anchorAt(2, 'second')];
    // Revision 1 rewritten and every hash recomputed with the chain's own rules: the chain alone verifies.
    const rewritten = events(3, (i) => ({ i: i === 1 ? 100 : i }));
    const text = exportLines(header, rewritten, [first, second]).join('\n');
    const named = { kind: 'anchoredHashDiffers', position: 2, message: expect.stringContaining('from 1 to 2') };
    expect(verifyExport(text).problem).toMatchObject(named);
    expect(verifyExport(text, first.root).problem).toMatchObject(named);
    const alone = exportLines(
      header,
      events(3, (i) => ({ i: i === 0 ? 100 : i })),
      [first],
    ).join('\n');
    expect(verifyExport(alone, first.root).problem).toMatchObject({
      kind: 'anchoredHashDiffers',
      position: 0,
      message: expect.stringContaining('revision 0 was rewritten'),
    });
    expect(verifyExport(exportLines(header, evs, [first, second]).join('\n'), first.root)).toMatchObject({
      problem: null,
      anchor: { anchorId: 'first', position: 0 },
    });
  });

  it('does not call a stream verified when none of its events carries a hash, unless an anchor holds it', () => {
    const bare = evs.map((e) => ({ ...e, metadata: {} }));
    expect(verifyExport(exportLines(header, bare, []).join('\n')).problem).toMatchObject({
      kind: 'missingHash',
      position: 0,
    });
    expect(verifyExport(exportLines(header, bare, [anchor]).join('\n')).problem).toBeNull();
  });
});
