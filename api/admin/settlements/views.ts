import { z } from 'zod';
import { centsToUsd } from '../../../domain/money.js';
import {
  FAILURE_KINDS,
  PAYOUT_METHODS,
  RECEIPT_STATUSES,
  type ReceiptLine,
} from '../../../domain/settlement/events.js';
import { currentOrder, paidBsCents, type ReceiptState } from '../../../domain/settlement/receipt.js';

/**
 * Receipt views, all built from the folded receipt, so the live
 * detail (read model) and the auditor's as-of detail (folded from the log) are one code path.
 */
const usd = z.number();
const instant = z.string().nullable();

export const ReceiptListItem = z.object({
  id: z.number().int(),
  receipt_number: z.string(),
  driver_id: z.number(),
  driver_name: z.string().nullable(),
  fiscal_period: z.string(),
  status: z.enum(RECEIPT_STATUSES),
  payout_method: z.enum(PAYOUT_METHODS).nullable(),
  net_usd: usd,
  payable_usd: usd,
  total_paid_bs_cents: z.number().int(),
  bank_reference: z.string().nullable(),
  failure_reason: z.string().nullable(),
  issued_at: z.string(),
  paid_at: instant,
  voided_at: instant,
  created_at: z.string(),
});

export const AdminLine = z.object({
  id: z.number().int(),
  line_number: z.number().int(),
  type: z.enum(['ORDER', 'ADJUSTMENT']),
  order_id: z.number().nullable(),
  order_date: z.string().nullable(),
  description: z.string(),
  subtotal_usd: usd,
  discount_usd: usd,
  order_total_usd: usd,
  commission_usd: usd,
  net_usd: usd,
  exchange_rate_amount: z.string(),
  total_bs_cents: z.number().int(),
});

export const PayoutOrderView = z.object({
  id: z.number().int(),
  idempotency_key: z.string(),
  method: z.enum(PAYOUT_METHODS),
  provider: z.string(),
  amount_bs_cents: z.number().int(),
  status: z.enum(['SENT', 'CONFIRMED', 'FAILED']),
  reference: z.string().nullable(),
  transaction_id: z.string().nullable(),
  attempt_count: z.number().int(),
  last_error: z.string().nullable(),
  sent_at: z.string(),
  confirmed_at: instant,
  failed_at: instant,
  attempts: z.array(
    z.object({
      attempt_no: z.number().int(),
      provider_code: z.string().nullable(),
      result: z.string(),
      created_at: z.string(),
    }),
  ),
});

export const ReceiptChangeView = z.object({
  action: z.string(),
  admin_id: z.number().nullable(),
  admin_name: z.string().nullable(),
  from_status: z.enum(RECEIPT_STATUSES),
  to_status: z.enum(RECEIPT_STATUSES),
  reason: z.string().nullable(),
  created_at: z.string(),
});

export const ReceiptDetail = ReceiptListItem.extend({
  city_id: z.number().nullable(),
  cutoff_from: z.string(),
  cutoff_to: z.string(),
  failure_kind: z.enum(FAILURE_KINDS).nullable(),
  subtotal_usd: usd,
  discount_usd: usd,
  orders_total_usd: usd,
  commission_usd: usd,
  net_bs_cents: z.number().int(),
  remuneration_base_usd: usd,
  remuneration_usd: usd,
  iva_prc: z.number(),
  iva_usd: usd,
  remuneration_total_usd: usd,
  beneficiary_name: z.string().nullable(),
  beneficiary_id_number: z.string().nullable(),
  payout_account: z.string().nullable(),
  beneficiary_bank_code: z.string().nullable(),
  beneficiary_account_type: z.string().nullable(),
  lines: z.array(AdminLine),
  payout_orders: z.array(PayoutOrderView),
  receipt_changes: z.array(ReceiptChangeView),
});

export const TrayItem = z.object({
  id: z.number().int(),
  receipt_number: z.string(),
  driver_id: z.number(),
  driver_name: z.string().nullable(),
  payout_method: z.enum(PAYOUT_METHODS).nullable(),
  net_usd: usd,
  payable_usd: usd,
  total_paid_bs_cents: z.number().int(),
  failure_reason: z.string().nullable(),
  failure_kind: z.enum(FAILURE_KINDS).nullable(),
  provider_code: z.string().nullable(),
  attempts: z.number().int(),
  failed_at: instant,
  created_at: z.string(),
});

export const DriverReceiptItem = z.object({
  id: z.number().int(),
  receipt_number: z.string(),
  fiscal_period: z.string(),
  status: z.enum(RECEIPT_STATUSES),
  cutoff_from: z.string(),
  cutoff_to: z.string(),
  issued_at: z.string(),
  net_usd: usd,
  payable_usd: usd,
  total_paid_bs_cents: z.number().int(),
  paid_at: instant,
  created_at: z.string(),
});

export const DriverReceiptDetail = DriverReceiptItem.extend({
  payout_method: z.enum(PAYOUT_METHODS).nullable(),
  subtotal_usd: usd,
  commission_usd: usd,
  iva_prc: z.string(),
  net_bs_cents: z.number().int(),
  lines: z.array(
    z.object({
      line_number: z.number().int(),
      type: z.enum(['ORDER', 'ADJUSTMENT']),
      order_id: z.number().nullable(),
      order_date: z.string().nullable(),
      description: z.string(),
      net_usd: usd,
      exchange_rate_amount: z.string(),
      total_bs_cents: z.number().int(),
    }),
  ),
});

export const toReceiptListItem = (s: ReceiptState): z.infer<typeof ReceiptListItem> => {
  const r = s.issued!;
  return {
    id: r.recordId,
    receipt_number: r.receiptNumber,
    driver_id: r.driverId,
    driver_name: r.beneficiary.name,
    fiscal_period: r.fiscalPeriod,
    status: s.status,
    payout_method: r.beneficiary.method,
    net_usd: centsToUsd(r.totals.netCents),
    payable_usd: centsToUsd(r.totals.payableCents),
    total_paid_bs_cents: paidBsCents(s),
    bank_reference: s.bankReference,
    failure_reason: s.failureReason,
    issued_at: r.issuedAt,
    paid_at: s.paidAt,
    voided_at: s.voidedAt,
    created_at: r.issuedAt,
  };
};

const adminLine = (l: ReceiptLine): z.infer<typeof AdminLine> => ({
  id: l.recordId,
  line_number: l.lineNumber,
  type: l.type,
  order_id: l.orderId,
  order_date: l.orderDate,
  description: l.description,
  subtotal_usd: centsToUsd(l.subtotalCents),
  discount_usd: centsToUsd(l.discountCents),
  order_total_usd: centsToUsd(l.orderTotalCents),
  commission_usd: centsToUsd(l.commissionCents),
  net_usd: centsToUsd(l.netCents),
  exchange_rate_amount: l.exchangeRateAmount,
  total_bs_cents: l.totalBsCents,
});

export const toReceiptDetail = (s: ReceiptState): z.infer<typeof ReceiptDetail> => {
  const r = s.issued!;
  const t = r.totals;
  return {
    ...toReceiptListItem(s),
    city_id: r.cityId,
    cutoff_from: r.cutoffFrom,
    cutoff_to: r.cutoffTo,
    failure_kind: s.failureKind,
    subtotal_usd: centsToUsd(t.subtotalCents),
    discount_usd: centsToUsd(t.discountCents),
    orders_total_usd: centsToUsd(t.ordersTotalCents),
    commission_usd: centsToUsd(t.commissionCents),
    net_bs_cents: t.netBsCents,
    remuneration_base_usd: centsToUsd(t.remunerationBaseCents),
    remuneration_usd: centsToUsd(t.remunerationBaseCents),
    iva_prc: r.ivaPrc,
    iva_usd: centsToUsd(t.ivaCents),
    remuneration_total_usd: centsToUsd(t.remunerationTotalCents),
    beneficiary_name: r.beneficiary.name,
    beneficiary_id_number: r.beneficiary.idNumber,
    payout_account: r.beneficiary.account,
    beneficiary_bank_code: r.beneficiary.bankCode,
    beneficiary_account_type: r.beneficiary.accountType,
    lines: r.lines.map(adminLine),
    payout_orders: s.payoutOrders.map((o) => ({
      id: o.recordId,
      idempotency_key: o.idempotencyKey,
      method: o.method,
      provider: o.provider,
      amount_bs_cents: o.amountBsCents,
      status: o.status,
      reference: o.reference,
      transaction_id: o.transactionId,
      attempt_count: o.attempts.length,
      last_error: o.lastError,
      sent_at: o.sentAt,
      confirmed_at: o.confirmedAt,
      failed_at: o.failedAt,
      attempts: o.attempts.map((a) => ({
        attempt_no: a.attemptNo,
        provider_code: a.providerCode,
        result: a.result,
        created_at: a.createdAt,
      })),
    })),
    receipt_changes: s.changes.map((c) => ({
      action: c.action,
      admin_id: c.adminId,
      admin_name: c.adminName,
      from_status: c.fromStatus,
      to_status: c.toStatus,
      reason: c.reason,
      created_at: c.createdAt,
    })),
  };
};

export const toTrayItem = (s: ReceiptState): z.infer<typeof TrayItem> => {
  const r = s.issued!;
  const order = currentOrder(s);
  const lastAttempt = order?.attempts[order.attempts.length - 1];
  return {
    id: r.recordId,
    receipt_number: r.receiptNumber,
    driver_id: r.driverId,
    driver_name: r.beneficiary.name,
    payout_method: r.beneficiary.method,
    net_usd: centsToUsd(r.totals.netCents),
    payable_usd: centsToUsd(r.totals.payableCents),
    total_paid_bs_cents: paidBsCents(s),
    failure_reason: s.failureReason,
    failure_kind: s.failureKind,
    provider_code: lastAttempt?.providerCode ?? null,
    attempts: order?.attempts.length ?? 0,
    failed_at: s.failedAt,
    created_at: r.issuedAt,
  };
};

export const toDriverReceiptItem = (s: ReceiptState): z.infer<typeof DriverReceiptItem> => {
  const r = s.issued!;
  return {
    id: r.recordId,
    receipt_number: r.receiptNumber,
    fiscal_period: r.fiscalPeriod,
    status: s.status,
    cutoff_from: r.cutoffFrom,
    cutoff_to: r.cutoffTo,
    issued_at: r.issuedAt,
    net_usd: centsToUsd(r.totals.netCents),
    payable_usd: centsToUsd(r.totals.payableCents),
    total_paid_bs_cents: paidBsCents(s),
    paid_at: s.paidAt,
    created_at: r.issuedAt,
  };
};

export const toDriverReceiptDetail = (s: ReceiptState): z.infer<typeof DriverReceiptDetail> => {
  const r = s.issued!;
  return {
    ...toDriverReceiptItem(s),
    payout_method: r.beneficiary.method,
    subtotal_usd: centsToUsd(r.totals.subtotalCents),
    commission_usd: centsToUsd(r.totals.commissionCents),
    iva_prc: String(r.ivaPrc),
    net_bs_cents: r.totals.netBsCents,
    lines: r.lines.map((l) => ({
      line_number: l.lineNumber,
      type: l.type,
      order_id: l.orderId,
      order_date: l.orderDate,
      description: l.description,
      net_usd: centsToUsd(l.netCents),
      exchange_rate_amount: l.exchangeRateAmount,
      total_bs_cents: l.totalBsCents,
    })),
  };
};
