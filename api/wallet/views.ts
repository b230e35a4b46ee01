import { z } from 'zod';
import { centsToUsd } from '../../domain/money.js';
import type { BalanceSummary } from '../../domain/wallet/balance.js';
import { ACCOUNT_TYPES, LEDGER_DIRECTIONS, LEDGER_TYPES, PAYOUT_METHODS } from '../../domain/wallet/events.js';
import type { WalletLedgerRow, WalletPayoutAccountRow } from '../../projections/wallet/walletLedger.js';

/** The contract's shapes: the balance summary, the ledger entry and the payout config. */
export const BalanceSummaryView = z
  .object({
    balanceUSD: z.number(),
    pendingPayoutUSD: z.number(),
    withdrawableUSD: z.number(),
    cashDebtUSD: z.number(),
    cashDebtCapUSD: z.number(),
    canGoOnline: z.boolean(),
  })
  .openapi('WalletBalance');

export const LedgerEntryView = z
  .object({
    id: z.number().int(),
    wallet_id: z.number().int(),
    order_id: z.number().int().nullable(),
    receipt_id: z.number().int().nullable(),
    type: z.enum(LEDGER_TYPES),
    direction: z.enum(LEDGER_DIRECTIONS),
    amount_cents: z.number().int(),
    balance_after_cents: z.number().int(),
    amount_usd: z.number(),
    balance_after_usd: z.number(),
    exchange_rate_amount: z.string().nullable(),
    description: z.string(),
    created_at: z.string(),
  })
  .openapi('LedgerEntry');

export const PayoutConfigView = z
  .object({
    id: z.number().int(),
    user_id: z.number().int(),
    method: z.enum(PAYOUT_METHODS),
    bank_code: z.string().nullable(),
    id_number: z.string().nullable(),
    phone: z.string().nullable(),
    account_number: z.string().nullable(),
    account_type: z.enum(ACCOUNT_TYPES).nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('PayoutConfig');

export const toBalanceView = (s: BalanceSummary): z.infer<typeof BalanceSummaryView> => ({
  balanceUSD: centsToUsd(s.balanceCents),
  pendingPayoutUSD: centsToUsd(s.pendingPayoutCents),
  withdrawableUSD: centsToUsd(s.withdrawableCents),
  cashDebtUSD: centsToUsd(s.cashDebtCents),
  cashDebtCapUSD: centsToUsd(s.cashDebtCapCents),
  canGoOnline: s.canGoOnline,
});

/**
 * The wallet's id is its driver's id: one wallet per driver. An entry's id is its event's place in the
 * log: entries are written by reactions, pure decisions that cannot mint a number, and the log fixes it.
 */
export const toLedgerEntryView = (r: WalletLedgerRow): z.infer<typeof LedgerEntryView> => ({
  id: Number(r.global_position),
  wallet_id: r.driver_id,
  order_id: r.order_id,
  receipt_id: r.receipt_id === null ? null : Number(r.receipt_id),
  type: r.type,
  direction: r.direction,
  amount_cents: r.amount_cents,
  balance_after_cents: r.balance_after_cents,
  amount_usd: centsToUsd(r.amount_cents),
  balance_after_usd: centsToUsd(r.balance_after_cents),
  exchange_rate_amount: r.exchange_rate_amount,
  description: r.description,
  created_at: r.created_at.toISOString(),
});

/** One payout account per wallet: its id is the driver's id. */
export const toPayoutConfigView = (r: WalletPayoutAccountRow): z.infer<typeof PayoutConfigView> => ({
  id: r.driver_id,
  user_id: r.user_id,
  method: r.method as z.infer<typeof PayoutConfigView>['method'],
  bank_code: r.bank_code,
  id_number: r.id_number,
  phone: r.phone,
  account_number: r.account_number,
  account_type: r.account_type as z.infer<typeof PayoutConfigView>['account_type'],
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});
