import { z } from 'zod';
import { validationError } from '../../domain/errors.js';

/** Station lists page newest first by (created_at, id); the cursor is base64url JSON of the last item's key. */
export interface PageKey {
  at: Date;
  id: number;
}

export const CursorParam = z.preprocess((v) => (v === '' ? undefined : v), z.string().max(200).optional());

export const limitParam = (def: number) => z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(1).max(100).default(def));

export const decodePageCursor = (cursor: string | undefined): PageKey | undefined => {
  if (cursor === undefined) return undefined;
  try {
    const key: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(key) && key.length === 2 && typeof key[0] === 'string' && Number.isSafeInteger(key[1])) {
      const at = new Date(key[0]);
      if (!Number.isNaN(at.getTime())) return { at, id: key[1] as number };
    }
  } catch {
    // Falls through to the 422 below.
  }
  throw validationError({ cursor: ['The cursor is not valid.'] });
};

/** Lists fetch limit + 1 rows: the extra one only says whether there is a next page. */
export const pageOf = <R extends { id: number; created_at: Date }, V>(rows: R[], limit: number, view: (r: R) => V) => {
  const page = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  const last = page[page.length - 1];
  return {
    items: page.map(view),
    next_cursor: hasMore && last ? Buffer.from(JSON.stringify([new Date(last.created_at).toISOString(), last.id])).toString('base64url') : null,
    has_more: hasMore,
  };
};

export const pageSchema = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), next_cursor: z.string().nullable(), has_more: z.boolean() });
