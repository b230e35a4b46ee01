/**
 * The payout hold on credit-funded reimbursements (docs/decisions/0046-money-risk-limits.md): a cutoff
 * leaves out a PROMO_REIMBURSEMENT entry whose order's client received a manual CREDIT adjustment less than
 * `holdHours` before the order was created, until that adjustment is `holdHours` old; the first cutoff
 * after that covers it. The entry stays in the ledger and in the balance meanwhile: only its payout waits,
 * so credit booked and spent at once cannot leave as money before anyone has had time to look at it.
 */
export interface CreditHoldFacts {
  /** The client and creation time of each order the entries name. */
  orders: ReadonlyMap<number, { clientId: number; createdAt: string }>;
  /** The times at which each of those clients received a manual CREDIT adjustment. */
  manualCreditsAt: ReadonlyMap<number, readonly string[]>;
  holdHours: number;
  now: Date;
}

const HOUR_MS = 3_600_000;

/** When the entry's hold ends, or null when it is not held (any more). */
export const creditHoldEnds = (entry: { type: string; orderId: number | null }, f: CreditHoldFacts): Date | null => {
  if (entry.type !== 'PROMO_REIMBURSEMENT' || entry.orderId === null) return null;
  const order = f.orders.get(entry.orderId);
  if (!order) return null;
  const created = Date.parse(order.createdAt);
  const holdMs = f.holdHours * HOUR_MS;
  let ends: number | null = null;
  for (const at of f.manualCreditsAt.get(order.clientId) ?? []) {
    const credited = Date.parse(at);
    if (credited <= created && created - credited < holdMs) ends = Math.max(ends ?? 0, credited + holdMs);
  }
  return ends !== null && f.now.getTime() < ends ? new Date(ends) : null;
};

/** The entries a cutoff may settle now: all but the held reimbursements. */
export const withoutHeldReimbursements = <E extends { type: string; orderId: number | null }>(
  entries: E[],
  f: CreditHoldFacts,
): E[] => entries.filter((e) => creditHoldEnds(e, f) === null);
