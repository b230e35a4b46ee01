import { z } from 'zod';
import { LEDGER_TYPES } from '../../domain/wallet/events.js';
import type { Db } from '../../infra/db/database.js';
import { ledgerPage } from '../../projections/wallet/walletQueries.js';
import { decodeCursor, encodeCursor, pageSchema } from '../cursor.js';
import { limit } from '../orders/schemas.js';
import { dateWindow, inDateOrder } from '../schemas.js';
import { LedgerEntryView, toLedgerEntryView } from './views.js';

/** The ledger query, shared by /wallet/me/transactions, its driver alias and the admin's view. */
export const LedgerQuery = z
  .object({
    type: z.enum(LEDGER_TYPES).optional(),
    ...dateWindow,
    limit: limit(30),
    cursor: z.string().max(200).optional(),
  })
  .refine(...inDateOrder);

export const LedgerPage = pageSchema(LedgerEntryView).openapi('LedgerPage');

const isPositionKey = (key: unknown): key is [number] =>
  Array.isArray(key) && key.length === 1 && Number.isSafeInteger(key[0]) && (key[0] as number) > 0;

export const emptyLedgerPage = { items: [], next_cursor: null, has_more: false };

/** One page of a driver's ledger, newest first; the cursor is the last entry's place in the log. */
export const ledgerPageOf = async (
  db: Db,
  driverId: number,
  q: z.infer<typeof LedgerQuery>,
): Promise<z.infer<typeof LedgerPage>> => {
  const before = decodeCursor(q.cursor, isPositionKey)?.[0];
  const { rows, hasMore } = await ledgerPage(db, driverId, {
    type: q.type,
    dateFrom: q.date_from,
    dateTo: q.date_to,
    limit: q.limit,
    before,
  });
  const last = rows.at(-1);
  return {
    items: rows.map(toLedgerEntryView),
    next_cursor: hasMore && last ? encodeCursor([last.global_position]) : null,
    has_more: hasMore,
  };
};
