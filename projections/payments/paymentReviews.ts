import { sql, type Kysely, type Migration } from 'kysely';
import type { PaymentConfirmedData, PaymentFailedData } from '../../domain/payment/events.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import type { Trx } from '../../infra/db/database.js';
import { projector } from '../projector.js';

/** An admin's decision on a payment under review. */
export const REVIEW_OUTCOMES = ['APPROVED', 'REJECTED'] as const;
export type ReviewOutcome = (typeof REVIEW_OUTCOMES)[number];

/**
 * The reviewed payments: one row per payment an admin approved or rejected, with who, when and why. A
 * payment is reviewed at most once (approving or rejecting ends its review), so the payment's id keys it.
 * A read model of its own rather than columns of `payments`, so that a new database and an existing one
 * both fill it from the log (a new inline read model catches up from the start).
 */
export interface PaymentReviewRow {
  payment_id: number;
  outcome: ReviewOutcome;
  admin_id: number;
  reason: string | null;
  reviewed_at: Date;
}

declare module '../../infra/db/database.js' {
  interface Database {
    payment_reviews: PaymentReviewRow;
  }
}

export const paymentReviewMigrations: Record<string, Migration> = {
  '0401_payment_reviews': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE payment_reviews (
        payment_id bigint PRIMARY KEY,
        outcome text NOT NULL,
        admin_id bigint NOT NULL,
        reason text,
        reviewed_at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX payment_reviews_newest ON payment_reviews (reviewed_at DESC, payment_id DESC)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE payment_reviews`.execute(db);
    },
  },
};

type E<D> = RecordedEvent<string, D>;

/** An admin's decision on a payment (a provider's or the system's is no review); the first one stands. */
const reviewed = async (
  trx: Trx,
  outcome: ReviewOutcome,
  d: { by: string; adminId: number | null; paymentId: number; reason: string | null },
  at: string,
) => {
  if (d.by !== 'admin' || d.adminId === null) return;
  await trx
    .insertInto('payment_reviews')
    .values({ payment_id: d.paymentId, outcome, admin_id: d.adminId, reason: d.reason, reviewed_at: new Date(at) })
    .onConflict((oc) => oc.column('payment_id').doNothing())
    .execute();
};

export const paymentReviewsProjector = projector('payment_reviews', {
  tables: ['payment_reviews'],
  handlers: {
    PaymentConfirmed: (trx, { data: d }: E<PaymentConfirmedData>) => reviewed(trx, 'APPROVED', d, d.confirmedAt),
    PaymentFailed: (trx, { data: d }: E<PaymentFailedData>) => reviewed(trx, 'REJECTED', d, d.failedAt),
  },
});
