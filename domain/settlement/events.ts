import type { DomainEvent } from '../decider.js';

/**
 * Settlement events (docs/domain-rules.md, settlement receipts). Three kinds of stream:
 * - `receipt-<receiptId>`: one receipt, its lines, payout orders, provider answers and tray actions;
 * - `settlement-pool-<driverId>`: which of the driver's ledger entries live receipts cover, so that no
 *   entry is ever covered twice, even by two cutoffs racing (the append's expected revision decides);
 * - `settlement-config`: the configuration, one event per change (the audit entry is its projection).
 */
export const receiptStream = (receiptId: string): string => `receipt-${receiptId}`;
export const poolStream = (driverId: number): string => `settlement-pool-${driverId}`;
export const CONFIG_STREAM = 'settlement-config';

export const RECEIPT_STATUSES = ['GENERATED', 'IN_PAYMENT', 'PAID', 'FAILED', 'PAID_EXTERNALLY', 'VOIDED'] as const;
export type ReceiptStatus = (typeof RECEIPT_STATUSES)[number];
export const FAILURE_KINDS = ['business', 'deadline'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];
export const PAYOUT_METHODS = ['PAGO_MOVIL', 'BANK_TRANSFER'] as const;
export type PayoutMethod = (typeof PAYOUT_METHODS)[number];

/**
 * Record ids: the API's integer ids of receipts, their lines and payout orders, minted from sequences by the
 * run that creates them and carried in the event, so a rebuild of the read models finds the same ids. The
 * UUID `receiptId` stays the stream's name inside.
 */
export interface ReceiptLine {
  recordId: number;
  lineNumber: number;
  type: 'ORDER' | 'ADJUSTMENT';
  orderId: number | null;
  orderDate: string | null;
  description: string;
  subtotalCents: number;
  discountCents: number;
  orderTotalCents: number;
  /** Negative: what the platform kept. */
  commissionCents: number;
  netCents: number;
  /** Bolivars per USD: the order's snapshot on an ORDER line, the official rate at the cutoff on an ADJUSTMENT line. */
  exchangeRateAmount: string;
  totalBsCents: number;
}

/** The driver's payout account as it stood at the cutoff (the receipt pays there, whatever changes later). */
export interface Beneficiary {
  name: string | null;
  method: PayoutMethod;
  idNumber: string | null;
  bankCode: string | null;
  /** Phone for PAGO_MOVIL, account number for BANK_TRANSFER. */
  account: string | null;
  accountType: string | null;
}

export interface ReceiptTotals {
  subtotalCents: number;
  discountCents: number;
  ordersTotalCents: number;
  commissionCents: number;
  netCents: number;
  payableCents: number;
  netBsCents: number;
  remunerationBaseCents: number;
  ivaCents: number;
  remunerationTotalCents: number;
}

export interface ReceiptIssuedData {
  receiptId: string;
  recordId: number;
  receiptNumber: string;
  fiscalPeriod: string;
  driverId: number;
  cityId: number | null;
  cutoffFrom: string;
  cutoffTo: string;
  ivaPrc: number;
  entryIds: string[];
  lines: ReceiptLine[];
  totals: ReceiptTotals;
  beneficiary: Beneficiary;
  issuedAt: string;
}

export interface PayoutOrderCreatedData {
  receiptId: string;
  payoutOrderId: string;
  recordId: number;
  idempotencyKey: string;
  method: PayoutMethod;
  provider: string;
  amountCents: number;
  amountBsCents: number;
  /** Set when an admin's retry created the order (the audit entry). */
  retry: { adminId: number; adminName: string | null } | null;
  at: string;
}

/** One call to the provider and what came back; `result` says what it proves about the money. */
export type AttemptResult = 'CONFIRMED' | 'ACKNOWLEDGED' | 'REJECTED' | 'NO_ANSWER' | 'ERROR';

export interface PayoutAttemptedData {
  receiptId: string;
  payoutOrderId: string;
  result: AttemptResult;
  providerCode: string | null;
  transactionId: string | null;
  reference: string | null;
  error: string | null;
  /** The answer came back in the call that sent the order (a retry's audit entry shows the outcome). */
  synchronous: boolean;
  /** 'provider' for the send call's answer, 'webhook' for a later delivery. */
  source: 'provider' | 'webhook';
  at: string;
}

export interface ReconcileDeadlinePassedData {
  receiptId: string;
  payoutOrderId: string;
  at: string;
}

export interface TrayActionData {
  receiptId: string;
  adminId: number;
  adminName: string | null;
  reason: string;
  at: string;
}

export type ReceiptEvent =
  | DomainEvent<'ReceiptIssued', ReceiptIssuedData>
  | DomainEvent<'PayoutOrderCreated', PayoutOrderCreatedData>
  | DomainEvent<'PayoutAttempted', PayoutAttemptedData>
  | DomainEvent<'ReconcileDeadlinePassed', ReconcileDeadlinePassedData>
  | DomainEvent<'ReceiptMarkedExternal', TrayActionData & { reference: string }>
  | DomainEvent<'ReceiptAnnulled', TrayActionData>;

export type PoolEvent =
  | DomainEvent<'EntriesReserved', { driverId: number; receiptId: string; entryIds: string[]; payableCents: number; at: string }>
  | DomainEvent<'EntriesReleased', { driverId: number; receiptId: string; at: string }>;

export const RECEIPT_EVENT_TYPES: ReceiptEvent['type'][] = ['ReceiptIssued', 'PayoutOrderCreated', 'PayoutAttempted', 'ReconcileDeadlinePassed', 'ReceiptMarkedExternal', 'ReceiptAnnulled'];
