import { roundHalfAwayFromZero } from '../money.js';
import type { ReceiptLine, ReceiptTotals } from './events.js';

/** A line's figures; the cutoff gives it its record id. */
export type LineFigures = Omit<ReceiptLine, 'recordId'>;

/** A wallet ledger entry as the cutoff sees it (the wallet's LedgerEntryRecorded), with its order's figures. */
export interface SettleableEntry {
  entryId: string;
  type: string;
  direction: 'CREDIT' | 'DEBIT';
  amountCents: number;
  orderId: number | null;
  exchangeRateAmount: string | null;
  description: string;
  at: string;
  /** The order's agreed water price and platform commission, when the entry belongs to an order. */
  order: { priceCents: number; commissionCents: number; deliveredAt: string | null } | null;
}

const ADJUSTMENT_TYPES = new Set(['PROMO_BONUS', 'PROMO_REIMBURSEMENT', 'MANUAL_ADJUSTMENT']);
/** PAYOUT_SENT is the settlement itself, never settled again. */
export const SETTLEABLE_TYPES = [
  'ORDER_EARNING',
  'SURPLUS_EARNING',
  'CASH_COMMISSION_DEBT',
  'PROMO_REIMBURSEMENT',
  'PROMO_BONUS',
  'MANUAL_ADJUSTMENT',
  'CASH_SOLIDARY_DRIVER',
  'CASH_SOLIDARY_CLIENT',
];

const signed = (e: SettleableEntry): number => (e.direction === 'CREDIT' ? e.amountCents : -e.amountCents);

/** Bolivar cents of a USD-cents amount at a rate given as bolivars per USD (a decimal string). */
export const bsCentsOf = (cents: number, rate: string): number => roundHalfAwayFromZero(cents * Number(rate));

/**
 * The entries a cutoff settles: every uncovered entry, when together they reach the minimum balance and
 * do not exceed what the driver may withdraw; otherwise none.
 */
export const settleableEntries = <E extends SettleableEntry>(
  entries: E[],
  f: {
    coveredEntryIds: ReadonlySet<string>;
    balanceCents: number;
    pendingPayoutCents: number;
    minBalanceCents: number;
  },
): E[] => {
  const open = entries.filter((e) => SETTLEABLE_TYPES.includes(e.type) && !f.coveredEntryIds.has(e.entryId));
  const sumCents = open.reduce((s, e) => s + signed(e), 0);
  const cashDebtCents = Math.max(0, -f.balanceCents);
  const withdrawableCents = Math.max(0, f.balanceCents - f.pendingPayoutCents - cashDebtCents);
  return open.length > 0 && sumCents >= f.minBalanceCents && sumCents <= withdrawableCents ? open : [];
};

/**
 * Lines and totals of a receipt: one ORDER line per order (all its entries netted: a cash order nets to
 * minus its commission), one ADJUSTMENT line per promotion or manual entry. Every line is paid in
 * bolivars at a rate of its own: an ORDER line at its order's snapshot, an ADJUSTMENT line at the official
 * rate in force at the cutoff (`cutoffRate`), so the receipt's bolivars (Σ lines) pay every dollar it owes.
 * The commission is tax-inclusive: its tax part at ivaPrc is |commission| × iva / (100 + iva), the base
 * the rest. Lines follow the entries' order (the ledger's).
 */
export const receiptLines = (
  entries: SettleableEntry[],
  ivaPrc: number,
  cutoffRate: string,
): { lines: LineFigures[]; totals: ReceiptTotals } => {
  const byOrder = new Map<number, SettleableEntry[]>();
  const lines: Omit<LineFigures, 'lineNumber'>[] = [];
  for (const e of entries) {
    if (e.orderId !== null && !ADJUSTMENT_TYPES.has(e.type)) {
      const group = byOrder.get(e.orderId);
      if (group) {
        group.push(e);
        continue;
      }
      byOrder.set(e.orderId, [e]);
      lines.push({ type: 'ORDER', orderId: e.orderId } as Omit<LineFigures, 'lineNumber'>);
    } else {
      lines.push({
        type: 'ADJUSTMENT',
        orderId: null,
        orderDate: null,
        description: e.description,
        subtotalCents: 0,
        discountCents: 0,
        orderTotalCents: 0,
        commissionCents: 0,
        netCents: signed(e),
        exchangeRateAmount: cutoffRate,
        totalBsCents: bsCentsOf(signed(e), cutoffRate),
      });
    }
  }
  const full: LineFigures[] = lines.map((l, i) => {
    if (l.type === 'ADJUSTMENT') return { ...l, lineNumber: i + 1 };
    const group = byOrder.get(l.orderId!)!;
    const first = group[0];
    const netCents = group.reduce((s, e) => s + signed(e), 0);
    const subtotalCents = first.order?.priceCents ?? 0;
    // An order's entries carry its rate snapshot; the cutoff's rate only stands in for one recorded without it.
    const rate = first.exchangeRateAmount ?? cutoffRate;
    return {
      lineNumber: i + 1,
      type: 'ORDER',
      orderId: first.orderId,
      orderDate: first.order?.deliveredAt ?? first.at,
      description: `Pedido #${first.orderId}`,
      subtotalCents,
      discountCents: 0,
      orderTotalCents: subtotalCents,
      commissionCents: -(first.order?.commissionCents ?? 0),
      netCents,
      exchangeRateAmount: rate,
      totalBsCents: bsCentsOf(netCents, rate),
    };
  });
  const sum = (f: (l: LineFigures) => number) => full.reduce((s, l) => s + f(l), 0);
  const commissionCents = sum((l) => l.commissionCents);
  const remunerationTotalCents = Math.abs(commissionCents);
  // round(total × iva / (100 + iva)) = total − round(total × 100 / (100 + iva)): the base is the rest.
  const remunerationBaseCents = roundHalfAwayFromZero((remunerationTotalCents * 100) / (100 + ivaPrc));
  const netCents = sum((l) => l.netCents);
  return {
    lines: full,
    totals: {
      subtotalCents: sum((l) => l.subtotalCents),
      discountCents: sum((l) => l.discountCents),
      ordersTotalCents: sum((l) => l.orderTotalCents),
      commissionCents,
      netCents,
      payableCents: netCents,
      netBsCents: sum((l) => l.totalBsCents),
      remunerationBaseCents,
      ivaCents: remunerationTotalCents - remunerationBaseCents,
      remunerationTotalCents,
    },
  };
};
