import { z } from 'zod';
import { instant, type EventsOf } from '../eventSchema.js';
import { Books } from '../settlement/events.js';

/**
 * The driver's wallet: one stream per driver (`wallet-<driverId>`), every money movement a
 * LedgerEntryRecorded with exactly one cause. The ledger read model (projections/wallet) is its
 * projection; settlement and reports read that table and these events.
 */
export const walletStream = (driverId: number): string => `wallet-${driverId}`;

/** The ledger types (docs/domain-rules.md). CASH_SOLIDARY_* are never written: cash orders carry no solidary split. */
export const LEDGER_TYPES = [
  'ORDER_EARNING',
  'SURPLUS_EARNING',
  'CASH_COMMISSION_DEBT',
  'CASH_SOLIDARY_DRIVER',
  'CASH_SOLIDARY_CLIENT',
  'PAYOUT_SENT',
  'MANUAL_ADJUSTMENT',
  'PROMO_BONUS',
  'PROMO_REIMBURSEMENT',
] as const;
export type LedgerType = (typeof LEDGER_TYPES)[number];

export const LEDGER_DIRECTIONS = ['CREDIT', 'DEBIT'] as const;
export type LedgerDirection = (typeof LEDGER_DIRECTIONS)[number];

export const PAYOUT_METHODS = ['PAGO_MOVIL', 'BANK_TRANSFER'] as const;
export const ACCOUNT_TYPES = ['ahorro', 'corriente'] as const;

export const WalletOpenedData = z.object({
  driverId: z.int(),
  openedAt: instant,
});
export type WalletOpenedData = z.infer<typeof WalletOpenedData>;

/**
 * An order's figures as the delivery decided them (its agreed water price and the platform's commission): a
 * settlement receipt's ORDER line shows them, read from the entry instead of the orders' read model.
 */
export const DeliveredOrderFigures = z.object({
  priceCents: z.int(),
  commissionCents: z.int(),
  deliveredAt: instant,
});
export type DeliveredOrderFigures = z.infer<typeof DeliveredOrderFigures>;

export const LedgerEntryRecordedData = z.object({
  driverId: z.int(),
  /** Also the event's id: derived from the cause, so a redelivered cause records nothing. */
  entryId: z.string(),
  type: z.enum(LEDGER_TYPES),
  direction: z.enum(LEDGER_DIRECTIONS),
  /** Always positive; the direction gives the sign. */
  amountCents: z.int(),
  /** The running balance after this entry; negative while the driver owes cash commissions. */
  balanceAfterCents: z.int(),
  orderId: z.int().nullable(),
  /** The settlement receipt a PAYOUT_SENT pays, by its record id (the integer the API answers). */
  receiptId: z.int().nullable(),
  /** The related order's official VES rate snapshot (bolivars per USD, e.g. "36.50"); null without an order. */
  exchangeRateAmount: z.string().nullable(),
  description: z.string(),
  /**
   * The one cause of the entry: the causing event's id (a delivery, a promotion grant), the settlement
   * receipt, or the admin's adjustment request. A cause never has two entries of the same type.
   */
  causeId: z.string(),
  /** The admin who adjusted by hand; null for entries the system wrote. */
  adminId: z.int().nullable(),
  at: z.string(),
  /** A delivery's entries carry its order's figures; absent on other entries and on entries written before. */
  orderFigures: DeliveredOrderFigures.optional(),
});
export type LedgerEntryRecordedData = z.infer<typeof LedgerEntryRecordedData>;

export const PayoutAccount = z.object({
  method: z.enum(PAYOUT_METHODS),
  bankCode: z.string().nullable(),
  idNumber: z.string().nullable(),
  phone: z.string().nullable(),
  accountNumber: z.string().nullable(),
  accountType: z.enum(ACCOUNT_TYPES).nullable(),
});
export type PayoutAccount = z.infer<typeof PayoutAccount>;

export const PayoutAccountSetData = PayoutAccount.extend({
  driverId: z.int(),
  /** The driver's user account (the spec's payout config `user_id`). */
  userId: z.int(),
  /** Whether the change was confirmed with the phone's one-time code. */
  otpVerified: z.boolean(),
  at: z.string(),
});
export type PayoutAccountSetData = z.infer<typeof PayoutAccountSetData>;

/**
 * A settlement period closed on this wallet (docs/decisions/0098): the wallet's state as it stood just
 * before this event, so the next cutoff reads the stream from here instead of from its start, and what the
 * period covered. It moves no money: a replay folds it to the state it already holds.
 */
export const WalletPeriodClosedData = z.object({
  driverId: z.int(),
  /** The settlement pool's period this close follows, and the receipt that settles it (issued before this). */
  period: z.int(),
  receiptId: z.string(),
  payableCents: z.int(),
  /** Where the period's SettlementPeriodClosed lies in the driver's pool stream. */
  poolRevision: z.int(),
  /** The books the period closed with (the pool's closing): the wallet revisions it covered, what it carries. */
  closing: Books,
  /** The balance after the last entry before this event. */
  balanceCents: z.int(),
  payoutAccount: PayoutAccount.extend({ userId: z.int(), setAt: z.string() }).nullable(),
  at: instant,
});
export type WalletPeriodClosedData = z.infer<typeof WalletPeriodClosedData>;

export const WALLET_EVENTS = {
  WalletOpened: WalletOpenedData,
  LedgerEntryRecorded: LedgerEntryRecordedData,
  PayoutAccountSet: PayoutAccountSetData,
  WalletPeriodClosed: WalletPeriodClosedData,
};
export type WalletEvent = EventsOf<typeof WALLET_EVENTS>;
