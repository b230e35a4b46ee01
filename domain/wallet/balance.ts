/**
 * The balance summary (docs/domain-rules.md, wallet), in cents. The API renders the `_USD` figures.
 */
export interface BalanceSummary {
  balanceCents: number;
  pendingPayoutCents: number;
  withdrawableCents: number;
  cashDebtCents: number;
  cashDebtCapCents: number;
  canGoOnline: boolean;
}

export const cashDebtOf = (balanceCents: number): number => Math.max(0, -balanceCents);

/** A driver may work while the cash they owe stays strictly below the cap. */
export const isUnderCashDebtCap = (balanceCents: number, cashDebtCapCents: number): boolean =>
  cashDebtOf(balanceCents) < cashDebtCapCents;

export const balanceSummary = (input: {
  balanceCents: number;
  pendingPayoutCents: number;
  cashDebtCapCents: number;
  driverActive: boolean;
}): BalanceSummary => {
  const cashDebtCents = cashDebtOf(input.balanceCents);
  return {
    balanceCents: input.balanceCents,
    pendingPayoutCents: input.pendingPayoutCents,
    withdrawableCents: Math.max(0, input.balanceCents - input.pendingPayoutCents - cashDebtCents),
    cashDebtCents,
    cashDebtCapCents: input.cashDebtCapCents,
    canGoOnline: input.driverActive && isUnderCashDebtCap(input.balanceCents, input.cashDebtCapCents),
  };
};
