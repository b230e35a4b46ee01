import type { LedgerType } from '../../domain/wallet/events.js';
import type { Db } from '../../infra/db/database.js';
import type { WalletLedgerRow, WalletPayoutAccountRow } from './walletLedger.js';
import { newestFirstPage } from '../../infra/db/keyset.js';

export interface LedgerFilter {
  type?: LedgerType;
  /** Calendar dates (UTC days, as the order history), both ends inclusive. */
  dateFrom?: string;
  dateTo?: string;
  limit: number;
  /** The global position of the last entry of the previous page. */
  before?: number;
}

const DAY_MS = 86_400_000;

export const ledgerPage = async (
  db: Db,
  driverId: number,
  f: LedgerFilter,
): Promise<{ rows: WalletLedgerRow[]; hasMore: boolean }> => {
  let q = db.selectFrom('wallet_ledger').selectAll().where('driver_id', '=', driverId);
  if (f.type) q = q.where('type', '=', f.type);
  if (f.dateFrom) q = q.where('created_at', '>=', new Date(`${f.dateFrom}T00:00:00Z`));
  if (f.dateTo) q = q.where('created_at', '<', new Date(new Date(`${f.dateTo}T00:00:00Z`).getTime() + DAY_MS));
  return newestFirstPage(q, ['global_position'], f.before === undefined ? undefined : [f.before], f.limit);
};

export const walletBalanceCents = async (db: Db, driverId: number): Promise<number | null> =>
  (await db.selectFrom('wallets').select('balance_cents').where('driver_id', '=', driverId).executeTakeFirst())
    ?.balance_cents ?? null;

export const payoutAccountOf = async (db: Db, driverId: number): Promise<WalletPayoutAccountRow | null> =>
  (await db.selectFrom('wallet_payout_accounts').selectAll().where('driver_id', '=', driverId).executeTakeFirst()) ??
  null;

export const isActiveDriver = async (db: Db, driverId: number): Promise<boolean> =>
  (await db.selectFrom('drivers').select('status').where('driver_id', '=', driverId).executeTakeFirst())?.status ===
  'ACTIVE';

/** One ledger entry by its id, once the ledger has applied it. */
export const ledgerEntryById = (db: Db, entryId: string): Promise<WalletLedgerRow | undefined> =>
  db.selectFrom('wallet_ledger').selectAll().where('entry_id', '=', entryId).executeTakeFirst();
