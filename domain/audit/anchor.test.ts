import { describe, expect, it } from 'vitest';
import { anchorDecider, type AnchorData } from './anchor.js';

const anchor = (root: string): AnchorData => ({
  anchorId: '2026-11-26',
  kind: 'DAILY',
  takenAt: '2026-11-26T04:00:00.000Z',
  root,
  heads: [{ stream: 'wallet-1', position: 3, hash: 'b'.repeat(64) }],
});

describe('anchor', () => {
  it('given no anchor, when one is recorded, then it is', () => {
    expect(anchorDecider.decide({ type: 'RecordAnchor', anchor: anchor('a'.repeat(64)) }, null)).toEqual([
      { type: 'AuditAnchorRecorded', data: anchor('a'.repeat(64)) },
    ]);
  });

  it('given the day is anchored, when another instance anchors it again, then nothing is recorded', () => {
    const state = anchorDecider.evolve(null, { type: 'AuditAnchorRecorded', data: anchor('a'.repeat(64)) });
    expect(anchorDecider.decide({ type: 'RecordAnchor', anchor: anchor('c'.repeat(64)) }, state)).toEqual([]);
  });
});

describe('anchor refusal', () => {
  const refusal = {
    anchorId: '2026-11-27',
    kind: 'DAILY' as const,
    refusedAt: '2026-11-27T04:00:00.000Z',
    previous: { anchorId: '2026-11-26', root: 'a'.repeat(64) },
    problems: [{ stream: 'wallet-1', position: 3, kind: 'anchoredHashDiffers', message: 'rewritten' }],
    streams: 1,
  };

  it('given no anchor, when the log does not extend the previous one, then the refusal is recorded', () => {
    expect(anchorDecider.decide({ type: 'RefuseAnchor', refusal }, null)).toEqual([
      { type: 'AuditAnchorRefused', data: refusal },
    ]);
  });

  it('given the day was refused, when another instance tries it again, then nothing more is recorded', () => {
    const state = anchorDecider.evolve(null, { type: 'AuditAnchorRefused', data: refusal });
    expect(anchorDecider.decide({ type: 'RecordAnchor', anchor: anchor('c'.repeat(64)) }, state)).toEqual([]);
  });
});
