import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../../infra/db/database.js';
import type { CityScope } from '../../../projections/customers/customerQueries.js';

/**
 * A report's rows as one SQL source, sorted by one key then by id (so the order is total and stable):
 * a page by offset for the list, keyset batches for the export. Sort keys are non-null expressions over
 * the source's alias `r` (a report sorts NULLs as its lowest values).
 */
export interface SortedSource {
  /** SELECT … FROM … WHERE … without ORDER BY; its `id` column is unique. */
  source: RawBuilder<unknown>;
  key: RawBuilder<unknown>;
  dir: 'asc' | 'desc';
  /**
   * The id is an indexed column of the source's main table: a page is then picked reading only what the
   * sort key needs (PostgreSQL drops the joins nothing else refers to), and its rows are read by id.
   */
  pickByKey?: boolean;
}

export const EXPORT_BATCH_ROWS = 1000;

const direction = (dir: 'asc' | 'desc') => sql.raw(dir === 'asc' ? 'ASC' : 'DESC');

/** One page of rows; the row count comes with the report's totals. */
export const pageOf = async <Row>(db: Db, s: SortedSource, limit: number, page: number): Promise<Row[]> => {
  const d = direction(s.dir);
  const order = sql`ORDER BY ${s.key} ${d}, r.id ${d}`;
  const picked = sql`SELECT r.id FROM (${s.source}) r ${order} LIMIT ${limit} OFFSET ${(page - 1) * limit}`;
  const { rows } = s.pickByKey
    ? await sql<Row>`SELECT r.* FROM (${s.source}) r WHERE r.id IN (${picked}) ${order}`.execute(db)
    : await sql<Row>`SELECT r.* FROM (${s.source}) r ${order} LIMIT ${limit} OFFSET ${(page - 1) * limit}`.execute(db);
  return rows;
};

/** Every row in order, EXPORT_BATCH_ROWS at a time, each batch starting after the last key seen. */
export async function* batchesOf<Row extends { id: number }>(
  db: Db,
  s: SortedSource,
  batchRows = EXPORT_BATCH_ROWS,
): AsyncIterable<Row> {
  const d = direction(s.dir);
  const after = s.dir === 'asc' ? sql.raw('>') : sql.raw('<');
  let last: { key: unknown; id: number } | null = null;
  for (;;) {
    const from: RawBuilder<unknown> = last ? sql`WHERE (${s.key}, r.id) ${after} (${last.key}, ${last.id})` : sql``;
    const { rows }: { rows: (Row & { sort_key: unknown })[] } = await sql<
      Row & { sort_key: unknown }
    >`SELECT r.*, ${s.key} AS sort_key FROM (${s.source}) r ${from} ORDER BY ${s.key} ${d}, r.id ${d}
      LIMIT ${batchRows}`.execute(db);
    for (const row of rows) yield row;
    if (rows.length < batchRows) return;
    const tail: Row & { sort_key: unknown } = rows[rows.length - 1];
    last = { key: tail.sort_key, id: tail.id };
  }
}

/** The conditions joined with AND (TRUE when there are none). */
export const allOf = (conditions: RawBuilder<unknown>[]): RawBuilder<unknown> =>
  conditions.length === 0 ? sql`TRUE` : sql.join(conditions, sql` AND `);

/** An admin limited to some cities sees only rows of those cities; `column` is a city id expression. */
export const inScope = (scope: CityScope, column: RawBuilder<unknown>): RawBuilder<unknown>[] =>
  scope.all ? [] : scope.cityIds.length === 0 ? [sql`FALSE`] : [sql`${column} IN (${sql.join(scope.cityIds)})`];

export const pageMeta = (total: number, perPage: number, currentPage: number) => ({
  total,
  per_page: perPage,
  current_page: currentPage,
  last_page: Math.max(1, Math.ceil(total / perPage)),
});
