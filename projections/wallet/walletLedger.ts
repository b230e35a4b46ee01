import { sql, type Kysely, type Migration } from 'kysely';
import type {
  LedgerDirection,
  LedgerEntryRecordedData,
  LedgerType,
  PayoutAccountSetData,
  WalletOpenedData,
} from '../../domain/wallet/events.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import { projector } from '../projector.js';

/**
 * The wallet read models: one row per wallet (its running balance), one per ledger entry and one per payout
 * account, read by the wallet routes. The settlement cutoff reads the wallet's stream instead.
 */
export interface WalletRow {
  driver_id: number;
  balance_cents: number;
  opened_at: Date;
  updated_at: Date;
}

export interface WalletLedgerRow {
  entry_id: string;
  driver_id: number;
  type: LedgerType;
  direction: LedgerDirection;
  amount_cents: number;
  balance_after_cents: number;
  order_id: number | null;
  /** The paid receipt's record id (PAYOUT_SENT). */
  receipt_id: number | null;
  exchange_rate_amount: string | null;
  description: string;
  cause_id: string;
  admin_id: number | null;
  /**
   * The entry's place in the log: the ledger's newest-first order, its cursor, and the entry's integer id
   * (fixed by the log, so a rebuild gives every entry the same id).
   */
  global_position: number;
  created_at: Date;
}

export interface WalletPayoutAccountRow {
  driver_id: number;
  user_id: number;
  method: string;
  bank_code: string | null;
  id_number: string | null;
  phone: string | null;
  account_number: string | null;
  account_type: string | null;
  created_at: Date;
  updated_at: Date;
}

declare module '../../infra/db/database.js' {
  interface Database {
    wallets: WalletRow;
    wallet_ledger: WalletLedgerRow;
    wallet_payout_accounts: WalletPayoutAccountRow;
  }
}

export const walletMigrations: Record<string, Migration> = {
  '0100_wallet_read_models': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE wallets (
        driver_id bigint PRIMARY KEY,
        balance_cents bigint NOT NULL,
        opened_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE TABLE wallet_ledger (
        entry_id text PRIMARY KEY,
        driver_id bigint NOT NULL,
        type text NOT NULL,
        direction text NOT NULL CHECK (direction IN ('CREDIT', 'DEBIT')),
        amount_cents bigint NOT NULL CHECK (amount_cents > 0),
        balance_after_cents bigint NOT NULL,
        order_id bigint,
        receipt_id text,
        exchange_rate_amount text,
        description text NOT NULL,
        cause_id text NOT NULL,
        admin_id bigint,
        global_position bigint NOT NULL UNIQUE,
        created_at timestamptz NOT NULL,
        UNIQUE (driver_id, cause_id, type)
      )`.execute(db);
      await sql`CREATE INDEX wallet_ledger_driver ON wallet_ledger (driver_id, global_position DESC)`.execute(db);
      await sql`CREATE INDEX wallet_ledger_order ON wallet_ledger (order_id) WHERE order_id IS NOT NULL`.execute(db);
      await sql`CREATE TABLE wallet_payout_accounts (
        driver_id bigint PRIMARY KEY,
        user_id bigint NOT NULL,
        method text NOT NULL,
        bank_code text,
        id_number text,
        phone text,
        account_number text,
        account_type text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE wallet_payout_accounts`.execute(db);
      await sql`DROP TABLE wallet_ledger`.execute(db);
      await sql`DROP TABLE wallets`.execute(db);
    },
  },
  /**
   * A PAYOUT_SENT entry names its receipt by the receipt's integer record id. Earlier entries named it by
   * its stream UUID, which no route answers any more: a database holding any is rebuilt from the log.
   */
  '0101_wallet_ledger_receipt_record_id': {
    async up(db: Kysely<unknown>) {
      await sql`ALTER TABLE wallet_ledger ALTER COLUMN receipt_id TYPE bigint USING NULL`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`ALTER TABLE wallet_ledger ALTER COLUMN receipt_id TYPE text`.execute(db);
    },
  },
};

type Event<D> = RecordedEvent<string, D>;

export const walletLedgerProjector = projector('wallet_ledger', {
  tables: ['wallets', 'wallet_ledger', 'wallet_payout_accounts'],
  handlers: {
    WalletOpened: (trx, { data: d }: Event<WalletOpenedData>) =>
      trx
        .insertInto('wallets')
        .values({
          driver_id: d.driverId,
          balance_cents: 0,
          opened_at: new Date(d.openedAt),
          updated_at: new Date(d.openedAt),
        })
        .onConflict((oc) => oc.column('driver_id').doNothing())
        .execute(),
    LedgerEntryRecorded: async (trx, e: Event<LedgerEntryRecordedData>) => {
      const d = e.data;
      const at = new Date(d.at);
      await trx
        .insertInto('wallet_ledger')
        .values({
          entry_id: d.entryId,
          driver_id: d.driverId,
          type: d.type,
          direction: d.direction,
          amount_cents: d.amountCents,
          balance_after_cents: d.balanceAfterCents,
          order_id: d.orderId,
          receipt_id: d.receiptId,
          exchange_rate_amount: d.exchangeRateAmount,
          description: d.description,
          cause_id: d.causeId,
          admin_id: d.adminId,
          global_position: e.globalPosition,
          created_at: at,
        })
        .execute();
      await trx
        .updateTable('wallets')
        .set({ balance_cents: d.balanceAfterCents, updated_at: at })
        .where('driver_id', '=', d.driverId)
        .execute();
    },
    PayoutAccountSet: (trx, { data: d }: Event<PayoutAccountSetData>) => {
      const at = new Date(d.at);
      const account = {
        user_id: d.userId,
        method: d.method,
        bank_code: d.bankCode,
        id_number: d.idNumber,
        phone: d.phone,
        account_number: d.accountNumber,
        account_type: d.accountType,
        updated_at: at,
      };
      return trx
        .insertInto('wallet_payout_accounts')
        .values({ driver_id: d.driverId, ...account, created_at: at })
        .onConflict((oc) => oc.column('driver_id').doUpdateSet(account))
        .execute();
    },
  },
  /** For other services: which wallet moved, never the payout account's details. */
  publish: (e) => {
    const d = e.data as Partial<LedgerEntryRecordedData> & { driverId: number };
    return [
      {
        subject: `events.wallet.${e.type}`,
        data: {
          driverId: d.driverId,
          entryId: d.entryId ?? null,
          ledgerType: d.type ?? null,
          balanceAfterCents: d.balanceAfterCents ?? null,
        },
      },
    ];
  },
});
