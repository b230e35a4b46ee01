import { sql, type SelectQueryBuilder, type StringReference } from 'kysely';

/**
 * Newest-first lists read in keyset pages. Rows sort by their sort columns, all descending: a key then a
 * unique id that breaks its ties, or a unique key alone. A page starts after the last row of the page before
 * it (`after`: that row's values of the sort columns, in their order), so a row written meanwhile neither
 * repeats nor hides one; reading one row more than a page says whether another page follows.
 */
export type SortColumns<DB, TB extends keyof DB> =
  readonly [StringReference<DB, TB>] | readonly [StringReference<DB, TB>, StringReference<DB, TB>];

/** The query sorted newest first, starting after `after` when given. */
export const newestFirst = <DB, TB extends keyof DB, O>(
  q: SelectQueryBuilder<DB, TB, O>,
  columns: SortColumns<DB, TB>,
  after: readonly unknown[] | undefined,
): SelectQueryBuilder<DB, TB, O> => {
  let sorted = after ? q.where(sql<boolean>`(${sql.join(columns.map((c) => sql.ref(c)))}) < (${sql.join(after)})`) : q;
  for (const c of columns) sorted = sorted.orderBy(c, 'desc');
  return sorted;
};

/** One page of `limit` rows after `after`, and whether more follow. */
export const newestFirstPage = async <DB, TB extends keyof DB, O>(
  q: SelectQueryBuilder<DB, TB, O>,
  columns: SortColumns<DB, TB>,
  after: readonly unknown[] | undefined,
  limit: number,
): Promise<{ rows: O[]; hasMore: boolean }> => {
  const rows = await newestFirst(q, columns, after)
    .limit(limit + 1)
    .execute();
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
};
