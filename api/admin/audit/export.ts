import type { AnchorData } from '../../../domain/audit/anchor.js';
import { CHAINED_CATEGORIES } from '../../../domain/audit/events.js';
import { chainedOf } from '../../../infra/audit/chain.js';
import { EXPORT_FORMAT, exportLines, type ExportAnchor, type ExportEvent } from '../../../infra/audit/exportFile.js';
import { merkleProof } from '../../../infra/audit/merkle.js';
import type { SqlPool } from '../../../infra/db/sqlPool.js';
import { readAnchorEvents, readStoredStream } from '../../../infra/eventStore/postgresAudit.js';

/**
 * A money stream's name as a caller sends it: its category and the id the stream is named by (a receipt's UUID,
 * a driver's, client's or payment's integer id). Anything else names no money stream.
 */
export const MONEY_STREAM = new RegExp(
  `^(?:receipt-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?:${CHAINED_CATEGORIES.filter((c) => c !== 'receipt').join('|')})-[1-9][0-9]{0,15})$`,
);
export const isMoneyStream = (stream: string): boolean => MONEY_STREAM.test(stream);

/** The proof of an anchor that holds the stream (the query found it by its leaf). */
const anchorProofOf = (stream: string, anchor: AnchorData): ExportAnchor => {
  const leafIndex = anchor.heads.findIndex((h) => h.stream === stream);
  return {
    kind: 'anchor',
    anchorId: anchor.anchorId,
    takenAt: anchor.takenAt,
    root: anchor.root,
    leafCount: anchor.heads.length,
    leafIndex,
    leaf: anchor.heads[leafIndex],
    proof: merkleProof(anchor.heads, leafIndex),
  };
};

/**
 * The export's lines (infra/audit/exportFile.ts), or null when the stream has no event: the proof of the latest
 * anchor that holds the stream and, when `root` names an earlier anchor that holds it, that one's too (oldest
 * first), so the file can be checked against any root published before.
 */
export const streamExport = async (
  pool: SqlPool,
  stream: string,
  now: Date,
  root?: string,
): Promise<string[] | null> => {
  const events = await readStoredStream(pool, stream);
  if (events.length === 0) return null;
  const [latest] = await readAnchorEvents(pool, { holding: stream, limit: 1 });
  const [asked] = root === undefined ? [] : await readAnchorEvents(pool, { holding: stream, root, limit: 1 });
  // An anchor found by its root holds the stream, so the latest that holds it exists too.
  const anchors = !latest ? [] : asked && asked.eventId !== latest.eventId ? [asked, latest] : [latest];
  return exportLines(
    { kind: 'stream', format: EXPORT_FORMAT, stream, exportedAt: now.toISOString() },
    events.map((e): ExportEvent => ({
      kind: 'event',
      ...chainedOf(e),
      globalPosition: e.globalPosition,
      recordedAt: e.recordedAt.toISOString(),
    })),
    anchors.map((a) => anchorProofOf(stream, a.data as AnchorData)),
  );
};
