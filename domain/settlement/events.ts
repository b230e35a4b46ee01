import { z } from 'zod';
import { instant, type EventsOf } from '../eventSchema.js';

/**
 * Settlement events (docs/domain-rules.md, settlement receipts). Four kinds of stream:
 * - `receipt-<receiptId>`: one receipt, its lines, payout orders, provider answers and tray actions;
 * - `settlement-pool-<driverId>`: which of the driver's ledger entries live receipts cover, so that no
 *   entry is ever covered twice, even by two cutoffs racing (the append's expected revision decides): one
 *   period per cutoff, each opening from the last one's closing books (docs/decisions/0050);
 * - `settlement-config`: the configuration, one event per change (the audit entry is its projection);
 * - `settlement-payees`: every driver that ever set a payout account, once: the drivers a cutoff visits
 *   (docs/decisions/0055).
 */
export const receiptStream = (receiptId: string): string => `receipt-${receiptId}`;
export const poolStream = (driverId: number): string => `settlement-pool-${driverId}`;
export const CONFIG_STREAM = 'settlement-config';
export const PAYEES_STREAM = 'settlement-payees';

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
export const ReceiptLine = z.object({
  recordId: z.int(),
  lineNumber: z.number(),
  type: z.enum(['ORDER', 'ADJUSTMENT']),
  orderId: z.int().nullable(),
  orderDate: z.string().nullable(),
  description: z.string(),
  subtotalCents: z.int(),
  discountCents: z.int(),
  orderTotalCents: z.int(),
  /** Negative: what the platform kept. */
  commissionCents: z.int(),
  netCents: z.int(),
  /** Bolivars per USD: the order's snapshot on an ORDER line, the official rate at the cutoff on an ADJUSTMENT line. */
  exchangeRateAmount: z.string(),
  totalBsCents: z.int(),
});
export type ReceiptLine = z.infer<typeof ReceiptLine>;

/** The driver's payout account as it stood at the cutoff (the receipt pays there, whatever changes later). */
export const Beneficiary = z.object({
  name: z.string().nullable(),
  method: z.enum(PAYOUT_METHODS),
  idNumber: z.string().nullable(),
  bankCode: z.string().nullable(),
  /** Phone for PAGO_MOVIL, account number for BANK_TRANSFER. */
  account: z.string().nullable(),
  accountType: z.string().nullable(),
});
export type Beneficiary = z.infer<typeof Beneficiary>;

export const ReceiptTotals = z.object({
  subtotalCents: z.int(),
  discountCents: z.int(),
  ordersTotalCents: z.int(),
  commissionCents: z.int(),
  netCents: z.int(),
  payableCents: z.int(),
  netBsCents: z.int(),
  remunerationBaseCents: z.int(),
  ivaCents: z.int(),
  remunerationTotalCents: z.int(),
});
export type ReceiptTotals = z.infer<typeof ReceiptTotals>;

export const ReceiptIssuedData = z.object({
  receiptId: z.string(),
  recordId: z.int(),
  receiptNumber: z.string(),
  fiscalPeriod: z.string(),
  driverId: z.int(),
  cityId: z.int().nullable(),
  cutoffFrom: z.string(),
  cutoffTo: z.string(),
  ivaPrc: z.number(),
  entryIds: z.array(z.string()),
  lines: z.array(ReceiptLine),
  totals: ReceiptTotals,
  beneficiary: Beneficiary,
  issuedAt: instant,
});
export type ReceiptIssuedData = z.infer<typeof ReceiptIssuedData>;

export const PayoutOrderCreatedData = z.object({
  receiptId: z.string(),
  payoutOrderId: z.string(),
  recordId: z.int(),
  idempotencyKey: z.string(),
  method: z.enum(PAYOUT_METHODS),
  provider: z.string(),
  amountCents: z.int(),
  amountBsCents: z.int(),
  /** Set when an admin's retry created the order (the audit entry). */
  retry: z.object({ adminId: z.int(), adminName: z.string().nullable() }).nullable(),
  at: z.string(),
});
export type PayoutOrderCreatedData = z.infer<typeof PayoutOrderCreatedData>;

/** One call to the provider and what came back; `result` says what it proves about the money. */
export const ATTEMPT_RESULTS = ['CONFIRMED', 'ACKNOWLEDGED', 'REJECTED', 'NO_ANSWER', 'ERROR'] as const;
export type AttemptResult = (typeof ATTEMPT_RESULTS)[number];

export const PayoutAttemptedData = z.object({
  receiptId: z.string(),
  payoutOrderId: z.string(),
  result: z.enum(ATTEMPT_RESULTS),
  providerCode: z.string().nullable(),
  transactionId: z.string().nullable(),
  reference: z.string().nullable(),
  error: z.string().nullable(),
  /** The answer came back in the call that sent the order (a retry's audit entry shows the outcome). */
  synchronous: z.boolean(),
  /** 'provider' for the send call's answer, 'webhook' for a later delivery. */
  source: z.enum(['provider', 'webhook']),
  at: z.string(),
});
export type PayoutAttemptedData = z.infer<typeof PayoutAttemptedData>;

export const ReconcileDeadlinePassedData = z.object({
  receiptId: z.string(),
  payoutOrderId: z.string(),
  at: z.string(),
});
export type ReconcileDeadlinePassedData = z.infer<typeof ReconcileDeadlinePassedData>;

export const TrayActionData = z.object({
  receiptId: z.string(),
  adminId: z.int(),
  adminName: z.string().nullable(),
  reason: z.string(),
  at: z.string(),
});
export type TrayActionData = z.infer<typeof TrayActionData>;

export const RECEIPT_EVENTS = {
  ReceiptIssued: ReceiptIssuedData,
  PayoutOrderCreated: PayoutOrderCreatedData,
  PayoutAttempted: PayoutAttemptedData,
  ReconcileDeadlinePassed: ReconcileDeadlinePassedData,
  ReceiptMarkedExternal: TrayActionData.extend({ reference: z.string() }),
  ReceiptAnnulled: TrayActionData,
};
export type ReceiptEvent = EventsOf<typeof RECEIPT_EVENTS>;

/** A wallet ledger entry by its id and its revision in the driver's wallet stream (0: somewhere from the start). */
export const EntryRef = z.object({ entryId: z.string(), revision: z.int() });
export type EntryRef = z.infer<typeof EntryRef>;

/**
 * A settlement period's books (docs/decisions/0050): all a cutoff needs of the past to decide on the wallet
 * stream read after them. Nothing here grows with the number of entries ever settled.
 */
export const Books = z.object({
  /** The wallet-stream revision through which every entry is settled or carried (-1: nothing read yet). */
  throughRevision: z.int(),
  /** The wallet balance at `throughRevision` (the last entry's balance after it). */
  balanceCents: z.int(),
  /** What receipts reserved, less what releases returned: less `paidOutCents`, the pending payout. */
  reservedCents: z.int(),
  /** The PAYOUT_SENT entries through `throughRevision`. */
  paidOutCents: z.int(),
  /** Settleable entries no live receipt covers, at or before `throughRevision` (held, released, or too few). */
  carried: z.array(EntryRef),
});
export type Books = z.infer<typeof Books>;

export const POOL_EVENTS = {
  EntriesReserved: z.object({
    driverId: z.int(),
    receiptId: z.string(),
    entryIds: z.array(z.string()),
    payableCents: z.int(),
    at: instant,
  }),
  EntriesReleased: z.object({ driverId: z.int(), receiptId: z.string(), at: instant }),
  /**
   * A cutoff closed the driver's period with a receipt: the entries it covers, and the books the period
   * opened with and closes with (the next period's opening), so an auditor reads each roll-over in one event.
   */
  SettlementPeriodClosed: z.object({
    driverId: z.int(),
    period: z.int(),
    receiptId: z.string(),
    entries: z.array(EntryRef),
    payableCents: z.int(),
    opening: Books,
    closing: Books,
    at: instant,
    /**
     * The receipts reserved before periods existed, as they stand (docs/decisions/0098): with them this event
     * is the whole pool, so the next cutoff reads the pool from here. Absent on closes written before.
     */
    reservations: z
      .record(z.string(), z.object({ entryIds: z.array(z.string()), payableCents: z.int(), released: z.boolean() }))
      .optional(),
  }),
  /** An annulled period receipt's entries and payable, back in the books for the next period. */
  EntriesReturned: z.object({
    driverId: z.int(),
    receiptId: z.string(),
    entries: z.array(EntryRef),
    payableCents: z.int(),
    at: instant,
  }),
};
export type PoolEvent = EventsOf<typeof POOL_EVENTS>;

export const PAYEE_EVENTS = {
  /** A driver set a payout account for the first time: from now on every cutoff visits the driver's books. */
  PayeeEnrolled: z.object({ driverId: z.int(), at: instant }),
};
export type PayeeEvent = EventsOf<typeof PAYEE_EVENTS>;

export const RECEIPT_EVENT_TYPES = Object.keys(RECEIPT_EVENTS) as ReceiptEvent['type'][];
