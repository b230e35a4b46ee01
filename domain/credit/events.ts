import { z } from 'zod';
import { instant, type EventsOf } from '../eventSchema.js';

/**
 * One credit stream per client. Credit sits in three buckets: ANY (spendable on orders and surplus
 * reservations), ORDERS (orders only) and SURPLUS (surplus reservations only). Every event that moves money
 * carries the balances after it, so the transaction history (back-office 2.3: balance_after_usd per bucket)
 * is a plain projection.
 */
export const CREDIT_BUCKETS = ['ANY', 'ORDERS', 'SURPLUS'] as const;
export type CreditBucket = (typeof CREDIT_BUCKETS)[number];
export const BucketAmounts = z.record(z.enum(CREDIT_BUCKETS), z.int());
export type BucketAmounts = z.infer<typeof BucketAmounts>;

/** What a redemption pays for: an order from bidding, or an order from a surplus reservation. */
export const CREDIT_KINDS = ['order', 'surplus'] as const;
export type CreditKind = (typeof CREDIT_KINDS)[number];

/** Transaction type PROMO_GRANT. */
export const CreditGrantedData = z.object({
  clientId: z.int(),
  grantId: z.int(),
  promotionId: z.int(),
  /** The delivery that reached the milestone. */
  orderId: z.int().nullable(),
  scope: z.enum(CREDIT_BUCKETS),
  amountCents: z.int(),
  balanceAfterCents: z.int(),
  grantedAt: instant,
});
export type CreditGrantedData = z.infer<typeof CreditGrantedData>;

/** Transaction type MANUAL_ADJUSTMENT. A debit may leave the bucket negative. */
export const CreditAdjustedData = z.object({
  clientId: z.int(),
  adminId: z.int(),
  direction: z.enum(['CREDIT', 'DEBIT']),
  scope: z.enum(CREDIT_BUCKETS),
  /** Always positive; the sign is in direction. */
  amountCents: z.int(),
  reason: z.string(),
  balanceAfterCents: z.int(),
  adjustedAt: instant,
});
export type CreditAdjustedData = z.infer<typeof CreditAdjustedData>;

/** Transaction type ORDER_REDEMPTION: one transaction row per bucket with a non-zero share of the split. */
export const CreditRedeemedData = z.object({
  clientId: z.int(),
  orderId: z.int(),
  kind: z.enum(CREDIT_KINDS),
  amountCents: z.int(),
  split: BucketAmounts,
  balancesAfter: BucketAmounts,
  redeemedAt: instant,
});
export type CreditRedeemedData = z.infer<typeof CreditRedeemedData>;

export const CREDIT_REFUND_REASONS = ['ORDER_REPRICED', 'ORDER_CANCELLED', 'ORDER_EXPIRED'] as const;
export type CreditRefundReason = (typeof CREDIT_REFUND_REASONS)[number];

/** Transaction type ORDER_REFUND: the whole redemption of the order goes back to the buckets it came from. */
export const CreditRefundedData = z.object({
  clientId: z.int(),
  orderId: z.int(),
  amountCents: z.int(),
  split: BucketAmounts,
  balancesAfter: BucketAmounts,
  reason: z.enum(CREDIT_REFUND_REASONS),
  refundedAt: instant,
});
export type CreditRefundedData = z.infer<typeof CreditRefundedData>;

export const CREDIT_EVENTS = {
  CreditGranted: CreditGrantedData,
  CreditAdjusted: CreditAdjustedData,
  CreditRedeemed: CreditRedeemedData,
  CreditRefunded: CreditRefundedData,
};
export type CreditEvent = EventsOf<typeof CREDIT_EVENTS>;

/** One credit stream per client. */
export const creditStream = (clientId: number): string => `credit-${clientId}`;
