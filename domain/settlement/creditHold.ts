import type { CreditEvent } from '../credit/events.js';

/**
 * The payout hold on credit-funded driver money (docs/decisions/0070-credit-hold-by-redemption.md): a cutoff
 * leaves out a driver's entry for an order its client's credit paid for, in whole or in part, when the client
 * received a manual CREDIT adjustment less than `holdHours` before a moment that credit was redeemed (each
 * redemption: creation, acceptance, a payment-method change; and the delivery that spends it), until that
 * adjustment is `holdHours` old; the first cutoff after that covers it. The entry stays in the ledger and in
 * the balance meanwhile: only its payout waits, so credit booked and spent at once cannot leave as money
 * before anyone has had time to look at it. Credit is fungible, so the freshest manual credit counts as
 * spent first: whatever older credit the client also held, fresh credit in reach of the order holds it.
 */

/** The driver money an order's credit can fund: the reimbursement of a cash order, the earning of any other. */
const HELD_TYPES: ReadonlySet<string> = new Set(['PROMO_REIMBURSEMENT', 'ORDER_EARNING', 'SURPLUS_EARNING']);

/** An order its client's credit pays for, and the moments that credit was redeemed. */
export interface CreditFundedOrder {
  clientId: number;
  /** Each time the order's credit was (re)redeemed. */
  redeemedAt: readonly string[];
  deliveredAt: string | null;
}

export interface CreditHoldFacts {
  /** The orders the entries name that credit paid for (an order credit did not pay for is absent). */
  orders: ReadonlyMap<number, CreditFundedOrder>;
  /** The times at which each of those clients received a manual CREDIT adjustment. */
  manualCreditsAt: ReadonlyMap<number, readonly string[]>;
  holdHours: number;
  now: Date;
}

const HOUR_MS = 3_600_000;

/** Whether the entry is driver money that credit could have funded (the cutoff asks only about those orders). */
export const mayBeCreditFunded = (entry: { type: string; orderId: number | null }): boolean =>
  entry.orderId !== null && HELD_TYPES.has(entry.type);

/** When the entry's hold ends, or null when it is not held (any more). */
export const creditHoldEnds = (entry: { type: string; orderId: number | null }, f: CreditHoldFacts): Date | null => {
  if (!mayBeCreditFunded(entry)) return null;
  const order = f.orders.get(entry.orderId!);
  if (!order) return null;
  const moments = [...order.redeemedAt, ...(order.deliveredAt ? [order.deliveredAt] : [])].map(Date.parse);
  const holdMs = f.holdHours * HOUR_MS;
  let ends: number | null = null;
  for (const at of f.manualCreditsAt.get(order.clientId) ?? []) {
    const credited = Date.parse(at);
    if (moments.some((m) => credited <= m && m - credited < holdMs)) ends = Math.max(ends ?? 0, credited + holdMs);
  }
  return ends !== null && f.now.getTime() < ends ? new Date(ends) : null;
};

/** The entries a cutoff may settle now: all but the held ones. */
export const withoutHeldEntries = <E extends { type: string; orderId: number | null }>(
  entries: E[],
  f: CreditHoldFacts,
): E[] => entries.filter((e) => creditHoldEnds(e, f) === null);

/**
 * What one client's credit stream tells the hold: when manual credit was booked, and for each order its credit
 * still pays for (a redemption not refunded since) every moment its credit was redeemed.
 */
export const creditHistoryOf = (
  events: readonly CreditEvent[],
): { manualCreditsAt: string[]; redeemedAt: Map<number, string[]> } => {
  const manualCreditsAt: string[] = [];
  const redeemedAt = new Map<number, string[]>();
  const live = new Set<number>();
  for (const e of events) {
    if (e.type === 'CreditAdjusted' && e.data.direction === 'CREDIT') manualCreditsAt.push(e.data.adjustedAt);
    if (e.type === 'CreditRedeemed') {
      live.add(e.data.orderId);
      redeemedAt.set(e.data.orderId, [...(redeemedAt.get(e.data.orderId) ?? []), e.data.redeemedAt]);
    }
    if (e.type === 'CreditRefunded') live.delete(e.data.orderId);
  }
  for (const orderId of redeemedAt.keys()) if (!live.has(orderId)) redeemedAt.delete(orderId);
  return { manualCreditsAt, redeemedAt };
};
