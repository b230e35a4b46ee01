import type { SqlPool } from '../db/sqlPool.js';
import type { StreamHead } from '../audit/merkle.js';
import { columns, createPostgresEventStore, toRecorded, type EventRow } from './postgresEventStore.js';
import type { RecordedEvent } from './port.js';

/**
 * What the audit reads of the log on PostgreSQL (docs/decisions/0051-hash-chain-and-anchors.md): a
 * stream's events exactly as stored, never through the versioning wrapper's upcasters, and the head of every
 * chained stream. Heads whose event carries no hash (stored before the chain) come back with hash null.
 */
export const readStoredStream = (pool: SqlPool, streamId: string): Promise<RecordedEvent[]> =>
  createPostgresEventStore(pool).readStream(streamId);

export type StoredHead = Omit<StreamHead, 'hash'> & { hash: string | null };

export const readChainHeads = async (pool: SqlPool, categories: readonly string[]): Promise<StoredHead[]> => {
  const { rows } = await pool.query<{ stream_id: string; stream_position: string | number; hash: string | null }>(
    `SELECT DISTINCT ON (stream_id) stream_id, stream_position, metadata->>'hash' AS hash
       FROM events WHERE split_part(stream_id, '-', 1) = ANY($1::text[])
      ORDER BY stream_id, stream_position DESC`,
    [categories],
  );
  return rows.map((r) => ({ stream: r.stream_id, position: Number(r.stream_position), hash: r.hash }));
};

/** The anchors recorded (infra/audit: AuditAnchorRecorded events), newest first. */
export const readAnchorEvents = async (
  pool: SqlPool,
  filter: { anchorId?: string; holding?: string; limit: number },
): Promise<RecordedEvent[]> => {
  const params: unknown[] = [filter.limit];
  let where = `type = 'AuditAnchorRecorded'`;
  if (filter.anchorId !== undefined) {
    params.push(filter.anchorId);
    where += ` AND data->>'anchorId' = $${params.length}`;
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
