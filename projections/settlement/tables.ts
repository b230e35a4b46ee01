import { sql, type Kysely, type Migration } from 'kysely';
import type { ReceiptState } from '../../domain/settlement/receipt.js';

declare module '../../infra/db/database.js' {
  interface Database {
    /** One row per receipt: filter columns, and the folded receipt (the detail views read `state`). */
    settlement_receipts: {
      /** The receipt's stream id (a UUID); `record_id` is the integer id the API answers. */
      id: string;
      record_id: number;
      receipt_number: string;
      driver_id: number;
      fiscal_period: string;
      status: string;
      failure_kind: string | null;
      payout_method: string | null;
      beneficiary_name: string | null;
      payable_cents: number;
      issued_at: Date;
      /** When it stopped reserving payable: paid (either way) or voided. */
      settled_at: Date | null;
      state: ReceiptState;
      updated_position: number;
    };
    /** Which receipt a payout order's idempotency key (the provider's internal_id) belongs to. */
    settlement_payout_orders: { idempotency_key: string; receipt_id: string; payout_order_id: string };
    settlement_config_audit: {
      id: string;
      old_values: unknown;
      new_values: unknown;
      admin_id: number;
      created_at: Date;
    };
  }
}

/**
 * The settlement projection's former copies of the ledger entries and payout accounts: created by 0200,
 * dropped by 0203, and created again (empty) by 0203's down.
 */
const createLedgerCopies = async (db: Kysely<unknown>): Promise<void> => {
  await sql`CREATE TABLE settlement_entries (
    entry_id text PRIMARY KEY,
    driver_id bigint NOT NULL,
    type text NOT NULL,
    direction text NOT NULL,
    amount_cents bigint NOT NULL,
    order_id bigint,
    exchange_rate_amount text,
    description text NOT NULL DEFAULT '',
    at timestamptz NOT NULL,
    position bigint NOT NULL,
    receipt_id text
  )`.execute(db);
  // The cutoff read a driver's whole ledger, and an annulment freed a receipt's entries.
  await sql`CREATE INDEX settlement_entries_driver ON settlement_entries (driver_id, position)`.execute(db);
  await sql`CREATE INDEX settlement_entries_receipt ON settlement_entries (receipt_id)
    WHERE receipt_id IS NOT NULL`.execute(db);
  await sql`CREATE TABLE settlement_payout_accounts (
    driver_id bigint PRIMARY KEY,
    method text NOT NULL,
    bank_code text,
    id_number text,
    phone text,
    account_number text,
    account_type text
  )`.execute(db);
};

export const settlementMigrations: Record<string, Migration> = {
  '0200_settlement_read_models': {
    async up(db: Kysely<unknown>) {
      await createLedgerCopies(db);
      await sql`CREATE TABLE settlement_receipts (
        id text PRIMARY KEY,
        receipt_number text NOT NULL UNIQUE,
        driver_id bigint NOT NULL,
        fiscal_period text NOT NULL,
        status text NOT NULL,
        failure_kind text,
        payout_method text,
        beneficiary_name text,
        payable_cents bigint NOT NULL,
        issued_at timestamptz NOT NULL,
        settled_at timestamptz,
        state jsonb NOT NULL,
        updated_position bigint NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX settlement_receipts_driver
        ON settlement_receipts (driver_id, issued_at DESC, id DESC)`.execute(db);
      await sql`CREATE INDEX settlement_receipts_status ON settlement_receipts (status, issued_at DESC)`.execute(db);
      await sql`CREATE TABLE settlement_payout_orders (
        idempotency_key text PRIMARY KEY,
        receipt_id text NOT NULL,
        payout_order_id text NOT NULL
      )`.execute(db);
      await sql`CREATE TABLE settlement_config_audit (
        id text PRIMARY KEY,
        old_values jsonb NOT NULL,
        new_values jsonb NOT NULL,
        admin_id bigint NOT NULL,
        created_at timestamptz NOT NULL
      )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      for (const t of [
        'settlement_config_audit',
        'settlement_payout_orders',
        'settlement_receipts',
        'settlement_payout_accounts',
        'settlement_entries',
      ]) {
        await sql`DROP TABLE ${sql.table(t)}`.execute(db);
      }
    },
  },
  /**
   * Integer record ids (receipts, lines, payout orders): minted from these sequences by the runs and carried
   * in the events. Receipts stored before it have no record id: a database with any must be rebuilt from a
   * log whose events carry them (none exists outside development).
   */
  '0201_settlement_record_ids': {
    async up(db: Kysely<unknown>) {
      for (const seq of ['receipt_id_seq', 'receipt_line_id_seq', 'payout_order_id_seq'])
        await sql`CREATE SEQUENCE IF NOT EXISTS ${sql.id(seq)}`.execute(db);
      await sql`ALTER TABLE settlement_receipts ADD COLUMN record_id bigint`.execute(db);
      await sql`CREATE UNIQUE INDEX settlement_receipts_record_id ON settlement_receipts (record_id)`.execute(db);
      // Lists break ties of issued_at by the record id (what a client sees), not by the stream's UUID.
      await sql`DROP INDEX settlement_receipts_driver`.execute(db);
      await sql`CREATE INDEX settlement_receipts_driver
        ON settlement_receipts (driver_id, issued_at DESC, record_id DESC)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP INDEX settlement_receipts_driver`.execute(db);
      await sql`CREATE INDEX settlement_receipts_driver
        ON settlement_receipts (driver_id, issued_at DESC, id DESC)`.execute(db);
      await sql`ALTER TABLE settlement_receipts DROP COLUMN record_id`.execute(db);
      for (const seq of ['receipt_id_seq', 'receipt_line_id_seq', 'payout_order_id_seq'])
        await sql`DROP SEQUENCE ${sql.id(seq)}`.execute(db);
    },
  },
  /**
   * The settlement projection's copies of the ledger entries and payout accounts go (docs/decisions/0055):
   * the cutoff reads each payee's wallet stream, and nothing else read them, while every ledger entry cost
   * a row here in its append's transaction. The wallet's own read models keep both for the routes.
   */
  '0203_settlement_entries_dropped': {
    async up(db: Kysely<unknown>) {
      await sql`DROP TABLE settlement_entries`.execute(db);
      await sql`DROP TABLE settlement_payout_accounts`.execute(db);
    },
    // Empty: a version that reads them again rebuilds the settlement projection to fill them.
    async down(db: Kysely<unknown>) {
      await createLedgerCopies(db);
    },
  },
};
