import { sql, type RawBuilder } from 'kysely';

/**
 * How an operator's search box meets names and phones in the read tables (drivers and customers alike):
 * a name by its words, accents and case ignored, in any order and with words between ('carlos perez'
 * finds 'Carlos Eduardo Pérez Bolívar'); a phone by its digits, the local form too (04124518229 finds
 * +584124518229).
 */

// Both cases: lower() folds only ASCII under a C locale (the embedded cluster's), so accents go first.
const ACCENTED = 'áàäâãéèëêíìïîóòöôõúùüûñçÁÀÄÂÃÉÈËÊÍÌÏÎÓÒÖÔÕÚÙÜÛÑÇ';
const PLAIN = 'aaaaaeeeeiiiiooooouuuuncAAAAAEEEEIIIIOOOOOUUUUNC';

/** The text lower-cased without accents (what a search is compared on); the SQL side does the same. */
export const searchable = (s: string): string =>
  s
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '');

export const likeOf = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const folded = (column: RawBuilder<unknown>) => sql`lower(translate(coalesce(${column}, ''), ${ACCENTED}, ${PLAIN}))`;

/** Every word of the search somewhere in the name; null for a search without words. */
export const nameHasWords = (column: RawBuilder<unknown>, q: string): RawBuilder<boolean> | null => {
  const words = searchable(q).split(/\s+/).filter(Boolean);
  if (words.length === 0) return null;
  return sql<boolean>`(${sql.join(
    words.map((w) => sql<boolean>`${folded(column)} LIKE ${likeOf(w)}`),
    sql` AND `,
  )})`;
};

/**
 * The phone holds the search's digits (three or more; a leading national 0 dropped); null otherwise, and null
 * for a search with letters (a plate `AB-00001` or a cédula `V-12.345.673` is not a phone as dialled).
 */
export const phoneHasDigits = (column: RawBuilder<unknown>, q: string): RawBuilder<boolean> | null => {
  if (/[^\d\s+().-]/.test(q)) return null;
  const digits = q.replace(/\D/g, '');
  if (digits.length < 3) return null;
  return sql<boolean>`regexp_replace(${column}, '[^0-9]', '', 'g') LIKE ${likeOf(digits.replace(/^0/, ''))}`;
};
