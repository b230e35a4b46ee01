import { sql, type Generated, type Kysely, type Migration } from 'kysely';
import {
  CREDIT_BUCKETS,
  type BucketAmounts,
  type CreditAdjustedData,
  type CreditBucket,
  type CreditGrantedData,
  type CreditRedeemedData,
  type CreditRefundedData,
} from '../../domain/credit/events.js';
import type { Db, Trx } from '../../infra/db/database.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import { projector } from '../projector.js';
import { newestFirstPage } from '../../infra/db/keyset.js';

/**
 * Customer credit read model: the balances per client (the credit summary) and the transaction history,
 * one row per bucket a movement touched.
 */
export type CreditTransactionType =
  'PROMO_GRANT' | 'ORDER_REDEMPTION' | 'ORDER_FORFEIT' | 'ORDER_REFUND' | 'MANUAL_ADJUSTMENT';

export interface CreditTransactionRow {
  id: Generated<number>;
  event_id: string;
  /** Which bucket row of the event (a redemption split over two buckets writes two rows). */
  seq: number;
  client_id: number;
  type: CreditTransactionType;
  scope: CreditBucket;
  direction: 'CREDIT' | 'DEBIT';
  amount_cents: number;
  balance_after_cents: number;
  order_id: number | null;
  promotion_id: number | null;
  description: string;
  created_at: Date;
}

export interface CreditBalanceRow {
  client_id: number;
  any_cents: number;
  orders_cents: number;
  surplus_cents: number;
  earned_cents: number;
  redeemed_cents: number;
}

declare module '../../infra/db/database.js' {
  interface Database {
    credit_balances: CreditBalanceRow;
    credit_transactions: CreditTransactionRow;
  }
}

export const creditViewMigrations: Record<string, Migration> = {
  '0320_credit_views': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE credit_balances (
        client_id bigint PRIMARY KEY,
        any_cents integer NOT NULL DEFAULT 0,
        orders_cents integer NOT NULL DEFAULT 0,
        surplus_cents integer NOT NULL DEFAULT 0,
        earned_cents integer NOT NULL DEFAULT 0,
        redeemed_cents integer NOT NULL DEFAULT 0
      )`.execute(db);
      await sql`CREATE TABLE credit_transactions (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        event_id uuid NOT NULL,
        seq smallint NOT NULL,
        client_id bigint NOT NULL,
        type text NOT NULL,
        scope text NOT NULL,
        direction text NOT NULL,
        amount_cents integer NOT NULL,
        balance_after_cents integer NOT NULL,
        order_id bigint,
        promotion_id bigint,
        description text NOT NULL,
        created_at timestamptz NOT NULL,
        UNIQUE (event_id, seq)
      )`.execute(db);
      await sql`CREATE INDEX credit_transactions_client ON credit_transactions (client_id, id DESC)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE credit_transactions, credit_balances`.execute(db);
    },
  },
};

type E<D> = RecordedEvent<string, D>;

const COLUMN: Record<CreditBucket, 'any_cents' | 'orders_cents' | 'surplus_cents'> = {
  ANY: 'any_cents',
  ORDERS: 'orders_cents',
  SURPLUS: 'surplus_cents',
};

const setBalances = async (trx: Trx, clientId: number, balances: Partial<BucketAmounts>, earned = 0, redeemed = 0) => {
  const set = Object.fromEntries(Object.entries(balances).map(([b, v]) => [COLUMN[b as CreditBucket], v]));
  await trx
    .insertInto('credit_balances')
    .values({
      client_id: clientId,
      any_cents: 0,
      orders_cents: 0,
      surplus_cents: 0,
      earned_cents: earned,
      redeemed_cents: redeemed,
      ...set,
    })
    .onConflict((oc) =>
      oc.column('client_id').doUpdateSet({
        ...set,
        earned_cents: sql`credit_balances.earned_cents + ${earned}`,
        redeemed_cents: sql`credit_balances.redeemed_cents + ${redeemed}`,
      }),
    )
    .execute();
};

type TransactionValues = Omit<CreditTransactionRow, 'id' | 'seq' | 'event_id'>;

const record = (trx: Trx, eventId: string, rows: TransactionValues[]) =>
  rows.length === 0
    ? Promise.resolve()
    : trx
        .insertInto('credit_transactions')
        .values(rows.map((r, seq) => ({ ...r, event_id: eventId, seq })))
        .onConflict((oc) => oc.columns(['event_id', 'seq']).doNothing())
        .execute();

/** One row per bucket with a non-zero share of a split movement. */
const splitRows = (
  split: BucketAmounts,
  balancesAfter: BucketAmounts,
  base: Omit<TransactionValues, 'scope' | 'amount_cents' | 'balance_after_cents'>,
): TransactionValues[] =>
  CREDIT_BUCKETS.filter((b) => split[b] !== 0).map((b) => ({
    ...base,
    scope: b,
    amount_cents: split[b],
    balance_after_cents: balancesAfter[b],
  }));

const REFUND_REASON: Record<CreditRefundedData['reason'], string> = {
  ORDER_REPRICED: 're-priced',
  ORDER_CANCELLED: 'cancelled',
  ORDER_EXPIRED: 'expired',
};

export const creditViewsProjector = projector('credit_views', {
  tables: ['credit_balances', 'credit_transactions'],
  handlers: {
    CreditGranted: async (trx, e: E<CreditGrantedData>) => {
      const d = e.data;
      await setBalances(trx, d.clientId, { [d.scope]: d.balanceAfterCents }, d.amountCents);
      await record(trx, e.eventId, [
        {
          client_id: d.clientId,
          type: 'PROMO_GRANT',
          scope: d.scope,
          direction: 'CREDIT',
          amount_cents: d.amountCents,
          balance_after_cents: d.balanceAfterCents,
          order_id: d.orderId,
          promotion_id: d.promotionId,
          description: 'Promotion credit',
          created_at: new Date(d.grantedAt),
        },
      ]);
    },
    CreditAdjusted: async (trx, e: E<CreditAdjustedData>) => {
      const d = e.data;
      await setBalances(
        trx,
        d.clientId,
        { [d.scope]: d.balanceAfterCents },
        d.direction === 'CREDIT' ? d.amountCents : 0,
      );
      await record(trx, e.eventId, [
        {
          client_id: d.clientId,
          type: 'MANUAL_ADJUSTMENT',
          scope: d.scope,
          direction: d.direction,
          amount_cents: d.amountCents,
          balance_after_cents: d.balanceAfterCents,
          order_id: null,
          promotion_id: null,
          description: d.reason,
          created_at: new Date(d.adjustedAt),
        },
      ]);
    },
    CreditRedeemed: async (trx, e: E<CreditRedeemedData>) => {
      const d = e.data;
      await setBalances(trx, d.clientId, d.balancesAfter, 0, d.amountCents);
      await record(
        trx,
        e.eventId,
        splitRows(d.split, d.balancesAfter, {
          client_id: d.clientId,
          type: 'ORDER_REDEMPTION',
          direction: 'DEBIT',
          order_id: d.orderId,
          promotion_id: null,
          description: `Credit applied to order #${d.orderId}`,
          created_at: new Date(d.redeemedAt),
        }),
      );
    },
    CreditRefunded: async (trx, e: E<CreditRefundedData>) => {
      const d = e.data;
      await setBalances(trx, d.clientId, d.balancesAfter, 0, -d.amountCents);
      await record(
        trx,
        e.eventId,
        splitRows(d.split, d.balancesAfter, {
          client_id: d.clientId,
          type: 'ORDER_REFUND',
          direction: 'CREDIT',
          order_id: d.orderId,
          promotion_id: null,
          description: `Credit returned from order #${d.orderId} (${REFUND_REASON[d.reason]})`,
          created_at: new Date(d.refundedAt),
        }),
      );
    },
  },
});

export const creditBalanceOf = async (db: Db, clientId: number): Promise<CreditBalanceRow> =>
  (await db.selectFrom('credit_balances').selectAll().where('client_id', '=', clientId).executeTakeFirst()) ?? {
    client_id: clientId,
    any_cents: 0,
    orders_cents: 0,
    surplus_cents: 0,
    earned_cents: 0,
    redeemed_cents: 0,
  };

export const creditTransactionsOf = async (
  db: Db,
  clientId: number,
  f: { type?: CreditTransactionType; scope?: CreditBucket; limit: number; beforeId?: number },
) => {
  let q = db.selectFrom('credit_transactions').selectAll().where('client_id', '=', clientId);
  if (f.type) q = q.where('type', '=', f.type);
  if (f.scope) q = q.where('scope', '=', f.scope);
  return newestFirstPage(q, ['id'], f.beforeId === undefined ? undefined : [f.beforeId], f.limit);
};

export const transactionsOfEvent = (db: Db, eventId: string) =>
  db.selectFrom('credit_transactions').selectAll().where('event_id', '=', eventId).orderBy('seq').execute();
