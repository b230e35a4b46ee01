import { z } from 'zod';
import { validationError } from '../domain/errors.js';
import { queryInteger } from './schemas.js';

/**
 * Cursor pages of the newest-first lists (infra/db/keyset.ts). A cursor is opaque to clients: base64url
 * JSON of the last item's sort key. One that does not decode to a key of the list's shape is a 422 on
 * `cursor`, never an empty page.
 */

export const CursorParam = z.preprocess((v) => (v === '' ? undefined : v), z.string().max(200).optional());

/** A page's size: blank is refused, as the document's integer says (the cursor's blank is the first page). */
export const limitParam = (def: number) => queryInteger(1, 100).default(def);

export const pageSchema = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), next_cursor: z.string().nullable(), has_more: z.boolean() });

export const encodeCursor = (key: readonly unknown[]): string => Buffer.from(JSON.stringify(key)).toString('base64url');

export const decodeCursor = <T>(cursor: string | undefined, isKey: (key: unknown) => key is T): T | undefined => {
  if (cursor === undefined) return undefined;
  try {
    const key: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (isKey(key)) return key;
  } catch {
    // Falls through to the 422 below.
  }
  throw validationError({ cursor: ['The cursor is not valid.'] });
};

/** A list keyed by a unique integer alone (an id or a log position). */
export const isIdKey = (k: unknown): k is [number] => Array.isArray(k) && k.length === 1 && Number.isSafeInteger(k[0]);

/** A list keyed by a time, then the id that breaks its ties. */
export const isTimeIdKey = (k: unknown): k is [string, number] =>
  Array.isArray(k) &&
  k.length === 2 &&
  typeof k[0] === 'string' &&
  !Number.isNaN(Date.parse(k[0])) &&
  Number.isSafeInteger(k[1]);

/** The (time, id) a page starts after. */
export const afterTimeId = (cursor: string | undefined): { at: Date; id: number } | undefined => {
  const key = decodeCursor(cursor, isTimeIdKey);
  return key && { at: new Date(key[0]), id: key[1] };
};

/** Lists that fetch limit + 1 rows: the extra one only says whether there is a next page. */
export const pageOf = <R extends { id: number; created_at: Date }, V>(rows: R[], limit: number, view: (r: R) => V) => {
  const page = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  const last = page[page.length - 1];
  return {
    items: page.map(view),
    next_cursor: hasMore && last ? encodeCursor([new Date(last.created_at).toISOString(), last.id]) : null,
    has_more: hasMore,
  };
};
