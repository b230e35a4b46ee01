import { sql, type Kysely, type Migration } from 'kysely';
import type {
  PaymentConfirmedData,
  PaymentExpiredData,
  PaymentFailedData,
  PaymentPreparedData,
  PaymentProviderEventRecordedData,
  PaymentReportedData,
  PaymentRequestedData,
  PaymentStatus,
  ReportedFormValue,
} from '../../domain/payment/events.js';
import { PAYMENT_EXPIRED_REASON } from '../../domain/payment/payment.js';
import type { Trx } from '../../infra/db/database.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import { projector } from '../projector.js';

/** The payments read model: one row per payment with every field of the spec's payment resource. */
export interface PaymentRow {
  id: number;
  order_id: number;
  user_id: number;
  method: string;
  provider: string;
  payment_form_id: number | null;
  internal_type: string | null;
  status: PaymentStatus;
  currency: string;
  amount_cents: number;
  amount_bs_cents: number | null;
  official_rate_cents: number | null;
  platform_revenue_cents: number;
  solidary_fund_cents: number;
  reference: string | null;
  provider_ref: string | null;
  checkout_url: string | null;
  receipt_url: string | null;
  prepared_at: Date | null;
  reported_values: ReportedFormValue[];
  reported_at: Date | null;
  expires_at: Date;
  confirmed_at: Date | null;
  confirmed_by: string | null;
  failed_at: Date | null;
  failure_reason: string | null;
  provider_events: number;
  created_at: Date;
  updated_at: Date;
}

declare module '../../infra/db/database.js' {
  interface Database {
    payments: PaymentRow;
  }
}

export const paymentViewMigrations: Record<string, Migration> = {
  '0400_payments': {
    async up(db: Kysely<unknown>) {
      // Payment ids are the spec's integers, handed out by the command side before the first event.
      await sql`CREATE SEQUENCE IF NOT EXISTS payment_id_seq`.execute(db);
      await sql`CREATE TABLE payments (
        id bigint PRIMARY KEY,
        order_id bigint NOT NULL,
        user_id bigint NOT NULL,
        method text NOT NULL,
        provider text NOT NULL,
        payment_form_id bigint,
        internal_type text,
        status text NOT NULL,
        currency text NOT NULL,
        amount_cents bigint NOT NULL,
        amount_bs_cents bigint,
        official_rate_cents bigint,
        platform_revenue_cents bigint NOT NULL,
        solidary_fund_cents bigint NOT NULL,
        reference text,
        provider_ref text,
        checkout_url text,
        receipt_url text,
        prepared_at timestamptz,
        reported_values jsonb NOT NULL DEFAULT '[]'::jsonb,
        reported_at timestamptz,
        expires_at timestamptz NOT NULL,
        confirmed_at timestamptz,
        confirmed_by text,
        failed_at timestamptz,
        failure_reason text,
        provider_events integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX payments_by_order ON payments (order_id, id)`.execute(db);
      await sql`CREATE INDEX payments_by_provider_ref ON payments (provider, provider_ref)
        WHERE provider_ref IS NOT NULL`.execute(db);
      await sql`CREATE INDEX payments_review_queue ON payments (created_at, id)
        WHERE status IN ('PENDING', 'PROCESSING', 'FAILED')`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE payments`.execute(db);
      await sql`DROP SEQUENCE payment_id_seq`.execute(db);
    },
  },
};

type E<D> = RecordedEvent<string, D>;

const update = (trx: Trx, paymentId: number, set: Partial<PaymentRow>) =>
  trx
    .updateTable('payments')
    .set(set as never)
    .where('id', '=', paymentId)
    .execute();

export const paymentViewsProjector = projector('payment_views', {
  tables: ['payments'],
  handlers: {
    PaymentRequested: async (trx, e: E<PaymentRequestedData>) => {
      const d = e.data;
      await trx
        .insertInto('payments')
        .values({
          id: d.paymentId,
          order_id: d.orderId,
          user_id: d.userId,
          method: d.method,
          provider: d.provider,
          payment_form_id: d.paymentFormId,
          internal_type: d.internalType,
          status: 'PENDING',
          currency: d.currency,
          amount_cents: d.amountCents,
          amount_bs_cents: d.amountBsCents,
          official_rate_cents: d.officialRateCents,
          platform_revenue_cents: d.platformRevenueCents,
          solidary_fund_cents: d.solidaryFundCents,
          reference: null,
          provider_ref: d.providerRef,
          checkout_url: d.checkoutUrl,
          receipt_url: null,
          prepared_at: null,
          reported_values: JSON.stringify([]) as never,
          reported_at: null,
          expires_at: new Date(d.expiresAt),
          confirmed_at: null,
          confirmed_by: null,
          failed_at: null,
          failure_reason: null,
          provider_events: 0,
          created_at: new Date(d.requestedAt),
          updated_at: new Date(d.requestedAt),
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    },
    PaymentPrepared: (trx, e: E<PaymentPreparedData>) =>
      update(trx, e.data.paymentId, {
        provider_ref: e.data.providerRef,
        prepared_at: new Date(e.data.preparedAt),
        updated_at: new Date(e.data.preparedAt),
      }),
    PaymentProcessing: (trx, e: E<PaymentReportedData>) => {
      const d = e.data;
      return update(trx, d.paymentId, {
        status: 'PROCESSING',
        reference: d.reference,
        reported_values: JSON.stringify(d.values) as never,
        ...(d.officialRateCents !== null
          ? { amount_bs_cents: d.amountBsCents, official_rate_cents: d.officialRateCents }
          : {}),
        reported_at: new Date(d.reportedAt),
        updated_at: new Date(d.reportedAt),
      });
    },
    PaymentProviderEventRecorded: (trx, e: E<PaymentProviderEventRecordedData>) =>
      trx
        .updateTable('payments')
        .set({ provider_events: sql`provider_events + 1`, updated_at: new Date(e.data.receivedAt) })
        .where('id', '=', e.data.paymentId)
        .execute(),
    PaymentConfirmed: (trx, e: E<PaymentConfirmedData>) =>
      trx
        .updateTable('payments')
        .set({
          status: 'CONFIRMED',
          reference: sql`coalesce(reference, ${e.data.providerReference})`,
          confirmed_at: new Date(e.data.confirmedAt),
          confirmed_by: e.data.by,
          failed_at: null,
          failure_reason: null,
          updated_at: new Date(e.data.confirmedAt),
        })
        .where('id', '=', e.data.paymentId)
        .execute(),
    PaymentFailed: (trx, e: E<PaymentFailedData>) =>
      update(trx, e.data.paymentId, {
        status: 'FAILED',
        failed_at: new Date(e.data.failedAt),
        failure_reason: e.data.reason,
        updated_at: new Date(e.data.failedAt),
      }),
    PaymentExpired: (trx, e: E<PaymentExpiredData>) =>
      update(trx, e.data.paymentId, {
        status: 'FAILED',
        failed_at: new Date(e.data.expiredAt),
        failure_reason: PAYMENT_EXPIRED_REASON,
        updated_at: new Date(e.data.expiredAt),
      }),
  },
});
