import { checkChain, type ChainedEvent, type ChainProblem } from './chain.js';
import { rootFromProof, type ProofStep, type StreamHead } from './merkle.js';

/**
 * The export of one money stream (GET /admin/audit/streams/{stream}/export), JSON lines: a header line, one line
 * per event as stored (with its prevHash and hash in its metadata), then the proof of the latest anchor that
 * holds the stream, when one does. Everything needed to check it is in the file
 * (docs/decisions/0051-hash-chain-and-anchors.md).
 */
export const EXPORT_FORMAT = 'money-stream-chain/1';

export interface ExportHeader {
  kind: 'stream';
  format: typeof EXPORT_FORMAT;
  stream: string;
  exportedAt: string;
}

export interface ExportEvent extends ChainedEvent {
  kind: 'event';
  globalPosition: number;
  recordedAt: string;
}

export interface ExportAnchor {
  kind: 'anchor';
  anchorId: string;
  takenAt: string;
  root: string;
  leafCount: number;
  leafIndex: number;
  leaf: StreamHead;
  proof: ProofStep[];
}

export type ExportLine = ExportHeader | ExportEvent | ExportAnchor;

export const exportLines = (header: ExportHeader, events: ExportEvent[], anchor: ExportAnchor | null): string[] =>
  [header, ...events, ...(anchor ? [anchor] : [])].map((l) => JSON.stringify(l));

export interface ExportVerdict {
  stream: string | null;
  events: number;
  /** The first thing that does not match; null when the whole file verifies. */
  problem: ChainProblem | { kind: 'format'; position: null; eventId: null; message: string } | null;
  /** The anchor the file's chain was checked against, when it holds one. */
  anchor: { anchorId: string; takenAt: string; root: string; position: number } | null;
}

const formatProblem = (message: string): ExportVerdict['problem'] => ({
  kind: 'format',
  position: null,
  eventId: null,
  message,
});

/**
 * Checks an export offline: the chain from the first event to the last, then the anchor (the anchored event is
 * in the file with the anchored hash, and the proof leads from it to the root). `expectedRoot`, when given, is
 * the root the auditor got from where the anchors are published.
 */
export const verifyExport = (text: string, expectedRoot?: string): ExportVerdict => {
  const verdict: ExportVerdict = { stream: null, events: 0, problem: null, anchor: null };
  const lines: ExportLine[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    if (raw.trim() === '') continue;
    try {
      lines.push(JSON.parse(raw) as ExportLine);
    } catch {
      return { ...verdict, problem: formatProblem(`line ${i + 1} is not JSON`) };
    }
  }
  const [header, ...rest] = lines;
  if (header?.kind !== 'stream' || header.format !== EXPORT_FORMAT)
    return { ...verdict, problem: formatProblem(`the first line is not a ${EXPORT_FORMAT} header`) };
  verdict.stream = header.stream;
  const events = rest.filter((l): l is ExportEvent => l.kind === 'event');
  const anchors = rest.filter((l): l is ExportAnchor => l.kind === 'anchor');
  verdict.events = events.length;
  if (rest.some((l) => l.kind !== 'event' && l.kind !== 'anchor') || anchors.length > 1)
    return { ...verdict, problem: formatProblem('a line is neither an event nor the one anchor') };

  // The service never exports a stream without events: a file without any was cut.
  if (events.length === 0) return { ...verdict, problem: formatProblem('the file holds no event') };
  const check = checkChain(header.stream, events);
  if (check.problem) return { ...verdict, problem: check.problem };

  const anchor = anchors[0];
  if (!anchor && expectedRoot !== undefined)
    return { ...verdict, problem: formatProblem(`the file holds no anchor to check against the root ${expectedRoot}`) };
  if (!anchor) return verdict;
  const { leaf } = anchor;
  const at = (message: string, kind: ChainProblem['kind']): ExportVerdict => ({
    ...verdict,
    problem: { kind, position: leaf.position, eventId: events[leaf.position]?.eventId ?? null, message },
  });
  if (leaf.stream !== header.stream) return at(`the anchor's leaf is ${leaf.stream}, not this stream`, 'anchorProof');
  if (leaf.position >= events.length)
    return at(`the anchor holds revision ${leaf.position}, which the file does not have`, 'anchoredEventMissing');
  if (check.hashes[leaf.position] !== leaf.hash)
    return at(`revision ${leaf.position} is not the event the anchor ${anchor.anchorId} holds`, 'anchoredHashDiffers');
  if (rootFromProof(leaf, anchor.proof) !== anchor.root)
    return at(`the proof does not lead to the anchor's root`, 'anchorProof');
  if (expectedRoot !== undefined && expectedRoot !== anchor.root)
    return at(`the anchor's root is not the published root ${expectedRoot}`, 'anchorProof');
  return {
    ...verdict,
    anchor: { anchorId: anchor.anchorId, takenAt: anchor.takenAt, root: anchor.root, position: leaf.position },
  };
};
