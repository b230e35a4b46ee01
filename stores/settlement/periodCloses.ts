import { sql } from 'kysely';
import type { Db } from '../../infra/db/database.js';
import './settlementTables.js';

/**
 * Where each stream's last period close lies (docs/decisions/0098): a hint, never the truth. The loader
 * checks that the event it finds there is a close and reads the stream from its start when it is not, so a
 * hint written late (a crash after the append), lost, or left by an older log costs a longer read, never a
 * wrong state. A close only ever moves forward.
 */
export const lastClosesOf = async (db: Db, streamIds: readonly string[]): Promise<Map<string, number>> => {
  if (streamIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('period_closes')
    .select(['stream_id', 'revision'])
    .where('stream_id', 'in', [...streamIds])
    .execute();
  return new Map(rows.map((r) => [r.stream_id, Number(r.revision)]));
};

export const recordClose = async (db: Db, streamId: string, revision: number): Promise<void> => {
  await sql`INSERT INTO period_closes (stream_id, revision) VALUES (${streamId}, ${revision})
    ON CONFLICT (stream_id) DO UPDATE SET revision = GREATEST(period_closes.revision, EXCLUDED.revision)`.execute(db);
};
