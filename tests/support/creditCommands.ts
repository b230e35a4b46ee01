import type { CreditCommand } from '../../domain/credit/credit.js';

/** An admin's goodwill credit to client 7 (any scope), the command the handler tests append most. */
export const adjustCreditCommand = (amountCents: number, now: Date): CreditCommand => ({
  type: 'AdjustCredit',
  clientId: 7,
  adminId: 1,
  direction: 'CREDIT',
  scope: 'ANY',
  amountCents,
  reason: 'goodwill after a late delivery',
  now,
});
