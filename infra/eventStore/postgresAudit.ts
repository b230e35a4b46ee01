import type { SqlPool } from '../db/sqlPool.js';
import type { StreamHead } from '../audit/merkle.js';
import { columns, createPostgresEventStore, toRecorded, type EventRow } from './postgresEventStore.js';
import type { RecordedEvent } from './port.js';

/**
 * What the audit reads of the log on PostgreSQL (docs/decisions/0051-hash-chain-and-anchors.md): a
 * stream's events exactly as stored, never through the versioning wrapper's upcasters, the chained streams
 * since the previous anchor, and the anchors.
 */
export const readStoredStream = (pool: SqlPool, streamId: string): Promise<RecordedEvent[]> =>
  createPostgresEventStore(pool).readStream(streamId);

/** The anchors recorded (infra/audit: AuditAnchorRecorded events), newest first. */
export const readAnchorEvents = async (
  pool: SqlPool,
  filter: { anchorId?: string; root?: string; holding?: string; limit: number },
): Promise<RecordedEvent[]> => {
  const params: unknown[] = [filter.limit];
  let where = `type = 'AuditAnchorRecorded'`;
  if (filter.anchorId !== undefined) {
    params.push(filter.anchorId);
    where += ` AND data->>'anchorId' = $${params.length}`;
  }
  if (filter.root !== undefined) {
    params.push(filter.root);
    where += ` AND data->>'root' = $${params.length}`;
  }
  if (filter.holding !== undefined) {
    params.push(JSON.stringify([{ stream: filter.holding }]));
    where += ` AND data->'heads' @> $${params.length}::jsonb`;
  }
  const { rows } = await pool.query<EventRow>(
    `SELECT ${columns} FROM events WHERE ${where} ORDER BY global_position DESC LIMIT $1`,
    params,
  );
  return rows.map(toRecorded);
};

/**
 * Every chained stream's events from where the given heads left it (docs/decisions/0071): from each head's
 * revision on for a stream a head names, from revision 0 for any other; grouped by stream, in order. A
 * stream a head names that has no event left at or after that revision is absent.
 */
export const readChainSince = async (
  pool: SqlPool,
  categories: readonly string[],
  since: readonly StreamHead[],
): Promise<Map<string, RecordedEvent[]>> => {
  const { rows } = await pool.query<EventRow>(
    `SELECT ${columns} FROM events
       LEFT JOIN unnest($2::text[], $3::bigint[]) AS anchored(stream, position) ON anchored.stream = stream_id
      WHERE split_part(stream_id, '-', 1) = ANY($1::text[]) AND stream_position >= coalesce(anchored.position, 0)
      ORDER BY stream_id, stream_position`,
    [categories, since.map((h) => h.stream), since.map((h) => h.position)],
  );
  const out = new Map<string, RecordedEvent[]>();
  for (const e of rows.map(toRecorded)) {
    const events = out.get(e.streamId);
    if (events) events.push(e);
    else out.set(e.streamId, [e]);
  }
  return out;
};

/** What an anchor list shows of each anchor, newest first, without loading the heads it holds. */
export interface AnchorSummaryRow {
  anchorId: string;
  kind: 'DAILY' | 'ON_DEMAND';
  takenAt: string;
  root: string;
  streamCount: number;
  previous: { anchorId: string; root: string } | null;
}

export const readAnchorSummaries = async (pool: SqlPool, limit: number): Promise<AnchorSummaryRow[]> => {
  const { rows } = await pool.query<{
    anchor_id: string;
    kind: AnchorSummaryRow['kind'];
    taken_at: string;
    root: string;
    stream_count: number;
    previous: AnchorSummaryRow['previous'];
  }>(
    `SELECT data->>'anchorId' AS anchor_id, data->>'kind' AS kind, data->>'takenAt' AS taken_at,
            data->>'root' AS root, jsonb_array_length(data->'heads') AS stream_count, data->'previous' AS previous
       FROM events WHERE type = 'AuditAnchorRecorded' ORDER BY global_position DESC LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({
    anchorId: r.anchor_id,
    kind: r.kind,
    takenAt: r.taken_at,
    root: r.root,
    streamCount: Number(r.stream_count),
    previous: r.previous ?? null,
  }));
};

/** The latest anchor decision when it is a refusal (no anchor was recorded since), else null. */
export const readStandingRefusal = async (pool: SqlPool): Promise<RecordedEvent | null> => {
  const { rows } = await pool.query<EventRow>(
    `SELECT ${columns} FROM events WHERE type IN ('AuditAnchorRecorded', 'AuditAnchorRefused')
      ORDER BY global_position DESC LIMIT 1`,
  );
  const [last] = rows.map(toRecorded);
  return last?.type === 'AuditAnchorRefused' ? last : null;
};
