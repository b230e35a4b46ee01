import { addDays } from 'date-fns';
import { fromZonedTime } from 'date-fns-tz';
import type { ReceiptState } from '../../domain/settlement/receipt.js';
import type { Db } from '../../infra/db/database.js';
import './tables.js';
import { newestFirst } from '../../infra/db/keyset.js';

/** A calendar day of the settlement timezone as the instants [start, next day's start). */
export const dayRange = (from: string | undefined, to: string | undefined, timezone: string) => ({
  fromAt: from ? fromZonedTime(`${from}T00:00:00`, timezone) : undefined,
  beforeAt: to
    ? fromZonedTime(
        `${addDays(new Date(`${to}T00:00:00Z`), 1)
          .toISOString()
          .slice(0, 10)}T00:00:00`,
        timezone,
      )
    : undefined,
});

export interface ReceiptFilter {
  status?: string;
  driverId?: number;
  fiscalPeriod?: string;
  fromAt?: Date;
  beforeAt?: Date;
  q?: string;
}

const filtered = (db: Db, f: ReceiptFilter) => {
  let q = db.selectFrom('settlement_receipts');
  if (f.status) q = q.where('status', '=', f.status);
  if (f.driverId !== undefined) q = q.where('driver_id', '=', f.driverId);
  if (f.fiscalPeriod) q = q.where('fiscal_period', '=', f.fiscalPeriod);
  if (f.fromAt) q = q.where('issued_at', '>=', f.fromAt);
  if (f.beforeAt) q = q.where('issued_at', '<', f.beforeAt);
  if (f.q) {
    const like = `%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where((eb) => eb.or([eb('receipt_number', 'ilike', like), eb('beneficiary_name', 'ilike', like)]));
  }
  return q;
};

/** A page of receipts, newest first. */
export const receiptsPage = async (
  db: Db,
  f: ReceiptFilter & { failureKind?: string },
  page: { limit: number; page: number },
): Promise<{ rows: ReceiptState[]; total: number }> => {
  let q = filtered(db, f);
  if (f.failureKind) q = q.where('failure_kind', '=', f.failureKind);
  const [{ total }] = await q.select((eb) => eb.fn.countAll<number>().as('total')).execute();
  const rows = await q
    .select('state')
    .orderBy('issued_at', 'desc')
    .orderBy('record_id', 'desc')
    .limit(page.limit)
    .offset((page.page - 1) * page.limit)
    .execute();
  return { rows: rows.map((r) => r.state), total: Number(total) };
};

/** A driver's receipts, newest first, after an (issued_at, record id) key. */
export const driverReceipts = async (
  db: Db,
  f: ReceiptFilter & { driverId: number },
  page: { limit: number; after?: [string, number] },
): Promise<ReceiptState[]> => {
  const after = page.after && [new Date(page.after[0]), page.after[1]];
  const rows = await newestFirst(filtered(db, f).select('state'), ['issued_at', 'record_id'], after)
    .limit(page.limit)
    .execute();
  return rows.map((r) => r.state);
};

/** The receipt with this record id (the API's integer id). */
export const receiptById = async (db: Db, recordId: number): Promise<ReceiptState | undefined> =>
  (await db.selectFrom('settlement_receipts').select('state').where('record_id', '=', recordId).executeTakeFirst())
    ?.state;

/** The stream id (UUID) of the receipt with this record id: the history and as-of views read its stream. */
export const receiptStreamIdOf = async (db: Db, recordId: number): Promise<string | undefined> =>
  (await db.selectFrom('settlement_receipts').select('id').where('record_id', '=', recordId).executeTakeFirst())?.id;

/** A driver's receipts as (stream id, record id), oldest first: the wallet replay reads their streams. */
export const driverReceiptStreams = (db: Db, driverId: number): Promise<{ id: string; record_id: number }[]> =>
  db
    .selectFrom('settlement_receipts')
    .select(['id', 'record_id'])
    .where('driver_id', '=', driverId)
    .orderBy('issued_at')
    .orderBy('record_id')
    .execute();
