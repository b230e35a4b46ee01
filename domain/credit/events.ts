import type { DomainEvent } from '../decider.js';

/**
 * One credit stream per client. Credit sits in three buckets: ANY (spendable on orders and surplus
 * reservations), ORDERS (orders only) and SURPLUS (surplus reservations only). Every event that moves money
 * carries the balances after it, so the transaction history (back-office 2.3: balance_after_usd per bucket)
 * is a plain projection.
 */
export const CREDIT_BUCKETS = ['ANY', 'ORDERS', 'SURPLUS'] as const;
export type CreditBucket = (typeof CREDIT_BUCKETS)[number];
export type BucketAmounts = Record<CreditBucket, number>;

/** What a redemption pays for: an order from bidding, or an order from a surplus reservation. */
export type CreditKind = 'order' | 'surplus';

/** Transaction type PROMO_GRANT. */
export interface CreditGrantedData {
  clientId: number;
  grantId: number;
  promotionId: number;
  /** The delivery that reached the milestone. */
  orderId: number | null;
  scope: CreditBucket;
  amountCents: number;
  balanceAfterCents: number;
  grantedAt: string;
}

/** Transaction type MANUAL_ADJUSTMENT. A debit may leave the bucket negative. */
export interface CreditAdjustedData {
  clientId: number;
  adminId: number;
  direction: 'CREDIT' | 'DEBIT';
  scope: CreditBucket;
  /** Always positive; the sign is in direction. */
  amountCents: number;
  reason: string;
  balanceAfterCents: number;
  adjustedAt: string;
}

/** Transaction type ORDER_REDEMPTION: one transaction row per bucket with a non-zero share of the split. */
export interface CreditRedeemedData {
  clientId: number;
  orderId: number;
  kind: CreditKind;
  amountCents: number;
  split: BucketAmounts;
  balancesAfter: BucketAmounts;
  redeemedAt: string;
}

export type CreditRefundReason = 'ORDER_REPRICED' | 'ORDER_CANCELLED' | 'ORDER_EXPIRED';

/** Transaction type ORDER_REFUND: the whole redemption of the order goes back to the buckets it came from. */
export interface CreditRefundedData {
  clientId: number;
  orderId: number;
  amountCents: number;
  split: BucketAmounts;
  balancesAfter: BucketAmounts;
  reason: CreditRefundReason;
  refundedAt: string;
}

export type CreditGranted = DomainEvent<'CreditGranted', CreditGrantedData>;
export type CreditAdjusted = DomainEvent<'CreditAdjusted', CreditAdjustedData>;
export type CreditRedeemed = DomainEvent<'CreditRedeemed', CreditRedeemedData>;
export type CreditRefunded = DomainEvent<'CreditRefunded', CreditRefundedData>;

export type CreditEvent = CreditGranted | CreditAdjusted | CreditRedeemed | CreditRefunded;

export const CREDIT_EVENT_TYPES = ['CreditGranted', 'CreditAdjusted', 'CreditRedeemed', 'CreditRefunded'] as const satisfies readonly CreditEvent['type'][];

/** One credit stream per client. */
export const creditStream = (clientId: number): string => `credit-${clientId}`;
