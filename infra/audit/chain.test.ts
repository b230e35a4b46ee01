import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalText, checkChain, hashOf, type ChainedEvent } from './chain.js';

const event = (position: number, data: unknown, metadata: Record<string, unknown> = {}): ChainedEvent => ({
  stream: 'wallet-7',
  position,
  eventId: `00000000-0000-4000-8000-00000000000${position}`,
  type: 'LedgerEntryRecorded',
  data,
  metadata,
});

/** A stream chained as the store wrapper chains it. */
const chained = (datas: unknown[]): ChainedEvent[] => {
  let prev: string | null = null;
  return datas.map((d, i) => {
    const e = event(i, d, { schemaVersion: 1 });
    const hash = hashOf(e, prev);
    const out = { ...e, metadata: { ...e.metadata, prevHash: prev, hash } };
    prev = hash;
    return out;
  });
};

describe('hash chain encoding', () => {
  it('hashes the RFC 8785 text: keys sorted at every depth, no spaces, the hash fields left out of metadata', () => {
    const e = event(
      1,
      { b: 1.5, a: 'é€' },
      { schemaVersion: 1, hash: 'x', prevHash: 'y', actor: { role: 'SYSTEM', id: null } },
    );
    const text =
      '{"data":{"a":"é€","b":1.5},"eventId":"00000000-0000-4000-8000-000000000001",' +
      '"metadata":{"actor":{"id":null,"role":"SYSTEM"},"schemaVersion":1},"position":1,' +
      `"prevHash":"${'a'.repeat(64)}","stream":"wallet-7","type":"LedgerEntryRecorded"}`;
    expect(canonicalText(e, 'a'.repeat(64))).toBe(text);
    expect(hashOf(e, 'a'.repeat(64))).toBe(createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex'));
  });

  it('verifies an intact chain and names the first event that does not match', () => {
    const good = chained([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(checkChain('wallet-7', good).problem).toBeNull();
    const changed = good.map((e, i) => (i === 1 ? { ...e, data: { n: 20 } } : e));
    expect(checkChain('wallet-7', changed).problem).toMatchObject({ kind: 'hash', position: 1 });
    expect(checkChain('wallet-7', [good[0], good[2]]).problem).toMatchObject({ kind: 'position', position: 2 });
    const reordered = [
      { ...good[1], position: 0 },
      { ...good[0], position: 1 },
    ];
    expect(checkChain('wallet-7', reordered).problem).toMatchObject({ kind: 'prevHash', position: 0 });
    expect(checkChain('wallet-8', good).problem).toMatchObject({ kind: 'stream', position: 0 });
    const stripped = good.map((e, i) => (i === 2 ? { ...e, metadata: { schemaVersion: 1 } } : e));
    expect(checkChain('wallet-7', stripped).problem).toMatchObject({ kind: 'missingHash', position: 2 });
  });
});
