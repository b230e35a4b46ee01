import { checkChain, type ChainedEvent, type ChainProblem } from './chain.js';
import { rootFromProof, type ProofStep, type StreamHead } from './merkle.js';

/**
 * The export of one money stream (GET /admin/audit/streams/{stream}/export), JSON lines: a header line, one line
 * per event as stored (with its prevHash and hash in its metadata), then the proof of each anchor exported with
 * it, oldest first: the latest that holds the stream, and an earlier one asked for by its root. Everything needed to check it is in the file
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

export const exportLines = (header: ExportHeader, events: ExportEvent[], anchors: ExportAnchor[]): string[] =>
  [header, ...events, ...anchors].map((l) => JSON.stringify(l));

export interface ExportVerdict {
  stream: string | null;
  events: number;
  /** The first thing that does not match; null when the whole file verifies. */
  problem: ChainProblem | { kind: 'format' | 'anchorProof'; position: null; eventId: null; message: string } | null;
  /** The anchor the file's chain was checked against, when it holds one. */
  anchor: { anchorId: string; takenAt: string; root: string; position: number } | null;
}

const formatProblem = (message: string, kind: 'format' | 'anchorProof' = 'format'): ExportVerdict['problem'] => ({
  kind,
  position: null,
  eventId: null,
  message,
});

/**
 * Checks an export offline: the chain from the first event to the last, then each anchor in the file (the
 * anchored event is in the file with the anchored hash, and the proof leads from it to the root).
 * `expectedRoot`, when given, is a root the auditor got from where the anchors are published, the latest or any
 * earlier one: the file must hold that anchor's proof. A rewrite whose hashes were recomputed passes the chain
 * but not an anchor taken before it: the verdict names the first anchored revision that differs, and the last
 * one that still matches bounds where the rewrite lies. A stream none of whose events carries a hash is
 * vouched for by nothing but an anchor.
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
  if (rest.some((l) => l.kind !== 'event' && l.kind !== 'anchor'))
    return { ...verdict, problem: formatProblem('a line is neither an event nor an anchor') };

  // The service never exports a stream without events: a file without any was cut.
  if (events.length === 0) return { ...verdict, problem: formatProblem('the file holds no event') };
  const check = checkChain(header.stream, events);
  if (check.problem) return { ...verdict, problem: check.problem };

  const chosen = expectedRoot === undefined ? anchors.at(-1) : anchors.find((a) => a.root === expectedRoot);
  if (!chosen && expectedRoot !== undefined)
    return {
      ...verdict,
      problem:
        anchors.length === 0
          ? formatProblem(`the file holds no anchor to check against the root ${expectedRoot}`)
          : formatProblem(`the file holds no anchor with the published root ${expectedRoot}`, 'anchorProof'),
    };
  const byPosition = [...anchors].sort((a, b) => a.leaf.position - b.leaf.position);
  let vouched: ExportAnchor | null = null;
  for (const anchor of byPosition) {
    const problem = anchorProblem(header.stream, events, check.hashes, anchor, vouched);
    if (problem) return { ...verdict, problem };
    vouched = anchor;
  }
  if (!events.some((e) => typeof e.metadata.hash === 'string') && !vouched)
    return {
      ...verdict,
      problem: {
        kind: 'missingHash',
        position: 0,
        eventId: events[0].eventId,
        message: 'no event carries a hash and no anchor holds the stream: nothing vouches for it',
      },
    };
  if (!chosen) return verdict;
  return {
    ...verdict,
    anchor: { anchorId: chosen.anchorId, takenAt: chosen.takenAt, root: chosen.root, position: chosen.leaf.position },
  };
};

/** What is wrong between the file's events and one anchor's proof; `vouched` is an earlier anchor that held. */
const anchorProblem = (
  stream: string,
  events: ExportEvent[],
  hashes: string[],
  anchor: ExportAnchor,
  vouched: ExportAnchor | null,
): ChainProblem | null => {
  const { leaf } = anchor;
  const at = (message: string, kind: ChainProblem['kind']): ChainProblem => ({
    kind,
    position: leaf.position,
    eventId: events[leaf.position]?.eventId ?? null,
    message,
  });
  if (leaf.stream !== stream) return at(`the anchor's leaf is ${leaf.stream}, not this stream`, 'anchorProof');
  if (rootFromProof(leaf, anchor.proof) !== anchor.root)
    return at(`the proof of anchor ${anchor.anchorId} does not lead to its root`, 'anchorProof');
  if (leaf.position >= events.length)
    return at(`the anchor holds revision ${leaf.position}, which the file does not have`, 'anchoredEventMissing');
  if (hashes[leaf.position] !== leaf.hash) {
    const from = vouched ? vouched.leaf.position + 1 : 0;
    const where =
      from === leaf.position
        ? `revision ${leaf.position} was rewritten`
        : `a revision from ${from} to ${leaf.position} was rewritten`;
    return at(
      `revision ${leaf.position} is not the event the anchor ${anchor.anchorId} holds: ${where}`,
      'anchoredHashDiffers',
    );
  }
  return null;
};
