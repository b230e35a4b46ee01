import type { DomainEvent } from '../decider.js';

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
export type PayoutMethod = (typeof PAYOUT_METHODS)[number];
export const ACCOUNT_TYPES = ['ahorro', 'corriente'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export interface WalletOpenedData {
  driverId: number;
  openedAt: string;
}

export interface LedgerEntryRecordedData {
  driverId: number;
  /** Also the event's id: derived from the cause, so a redelivered cause records nothing. */
  entryId: string;
  type: LedgerType;
  direction: LedgerDirection;
  /** Always positive; the direction gives the sign. */
  amountCents: number;
  /** The running balance after this entry; negative while the driver owes cash commissions. */
  balanceAfterCents: number;
  orderId: number | null;
  /** The settlement receipt a PAYOUT_SENT pays, by its record id (the integer the API answers). */
  receiptId: number | null;
  /** The related order's official VES rate snapshot (bolivars per USD, e.g. "36.50"); null without an order. */
  exchangeRateAmount: string | null;
  description: string;
  /**
   * The one cause of the entry: the causing event's id (a delivery, a promotion grant), the settlement
   * receipt, or the admin's adjustment request. A cause never has two entries of the same type.
   */
  causeId: string;
  /** The admin who adjusted by hand; null for entries the system wrote. */
  adminId: number | null;
  at: string;
}

export interface PayoutAccount {
  method: PayoutMethod;
  bankCode: string | null;
  idNumber: string | null;
  phone: string | null;
  accountNumber: string | null;
  accountType: AccountType | null;
}

export interface PayoutAccountSetData extends PayoutAccount {
  driverId: number;
  /** The driver's user account (the spec's payout config `user_id`). */
  userId: number;
  /** Whether the change was confirmed with the phone's one-time code. */
  otpVerified: boolean;
  at: string;
}

export type WalletOpened = DomainEvent<'WalletOpened', WalletOpenedData>;
export type LedgerEntryRecorded = DomainEvent<'LedgerEntryRecorded', LedgerEntryRecordedData>;
export type PayoutAccountSet = DomainEvent<'PayoutAccountSet', PayoutAccountSetData>;

export type WalletEvent = WalletOpened | LedgerEntryRecorded | PayoutAccountSet;
