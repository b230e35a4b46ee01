import { z } from 'zod';
import { centsToUsd } from '../../domain/money.js';
import { isoOrNull } from '../../domain/time.js';
import { CASH_USD } from '../../domain/payment/payment.js';
import type { PaymentRow, ReviewedRow, ReviewRow } from '../../projections/payments/paymentQueries.js';
import type { ReviewedItem, ReviewItem } from '../admin/payments/routes.js';

/** The contract's payment resource; amount_* is the order's client_charged_*. */
export const toPaymentView = (r: PaymentRow): z.infer<typeof PaymentSchema> => ({
  id: r.id,
  order_id: r.order_id,
  user_id: r.user_id,
  method: r.method,
  provider: r.provider,
  payment_form_id: r.payment_form_id,
  internal_type: r.internal_type,
  status: r.status,
  amount_cents: r.amount_cents,
  amount_usd: centsToUsd(r.amount_cents),
  amount_bs_cents: r.amount_bs_cents,
  official_rate_cents: r.official_rate_cents,
  reference: r.reference,
  provider_ref: r.provider_ref,
  receipt_url: r.receipt_url,
  reported_at: isoOrNull(r.reported_at),
  expires_at: new Date(r.expires_at).toISOString(),
  confirmed_at: isoOrNull(r.confirmed_at),
  failure_reason: r.failure_reason,
  currency: r.currency,
  created_at: new Date(r.created_at).toISOString(),
  updated_at: new Date(r.updated_at).toISOString(),
  platform_revenue_usd: centsToUsd(r.platform_revenue_cents),
  solidary_fund_usd: centsToUsd(r.solidary_fund_cents),
});

/** POST /orders/{id}/payment/form answers this subset. */
export const toFormReportView = (r: PaymentRow): z.infer<typeof FormReportSchema> => ({
  id: r.id,
  status: r.status,
  method: r.method,
  internal_type: r.internal_type,
  reference: r.reference,
  amount_usd: centsToUsd(r.amount_cents),
  amount_bs: r.currency === 'VES' && r.amount_bs_cents !== null ? centsToUsd(r.amount_bs_cents) : null,
  currency: r.currency,
});

/** The reported value of a form field of this input type (the payer's phone, bank), or null. */
const reportedOf = (r: PaymentRow, inputType: string): string | null =>
  r.reported_values.find((v) => v.input_type === inputType)?.value ?? null;

/**
 * A review queue item (the contract's payment review item): the payment, what was reported, the amount
 * in bolivars, the order to deliver and the client who pays, and whether an admin may act.
 */
export const toReviewItem = (r: ReviewRow): z.infer<typeof ReviewItem> => ({
  ...toPaymentView(r),
  amount_bs: r.amount_bs_cents === null ? null : centsToUsd(r.amount_bs_cents),
  notes: r.order_notes,
  reported: r.method === 'PAYMENT_FORM' ? { phone: reportedOf(r, 'phone'), bank: reportedOf(r, 'bank') } : null,
  reported_values: r.reported_values,
  actionable: (r.status === 'PENDING' || r.status === 'PROCESSING') && r.method !== CASH_USD,
  order: {
    id: r.order_id,
    address: r.order_address,
    liters_requested: r.order_liters_requested,
    status: r.order_status,
  },
  client: { id: r.user_id, name: r.client_name, phone: r.client_phone },
});

/** A reviewed payment: the queue's item (its review over, nothing to act on) with the admin's decision. */
export const toReviewedItem = (r: ReviewedRow): z.infer<typeof ReviewedItem> => {
  const { actionable: _, ...item } = toReviewItem(r);
  return {
    ...item,
    review: {
      outcome: r.outcome,
      reason: r.review_reason,
      reviewed_at: new Date(r.reviewed_at).toISOString(),
      admin: { id: r.admin_id, name: r.admin_name },
    },
  };
};

const nullableString = z.string().nullable();

export const PaymentSchema = z
  .object({
    id: z.number().int(),
    order_id: z.number().int(),
    user_id: z.number().int(),
    method: z.string(),
    provider: z.string(),
    payment_form_id: z.number().int().nullable(),
    internal_type: nullableString,
    status: z.enum(['PENDING', 'PROCESSING', 'CONFIRMED', 'FAILED']),
    amount_cents: z.number().int(),
    amount_usd: z.number(),
    amount_bs_cents: z.number().int().nullable(),
    official_rate_cents: z.number().int().nullable(),
    reference: nullableString,
    provider_ref: nullableString,
    receipt_url: nullableString,
    reported_at: nullableString,
    expires_at: z.string(),
    confirmed_at: nullableString,
    failure_reason: nullableString,
    currency: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    platform_revenue_usd: z.number(),
    solidary_fund_usd: z.number(),
  })
  .openapi('Payment');

export const FormReportSchema = z.object({
  id: z.number().int(),
  status: z.string(),
  method: z.string(),
  internal_type: z.string().nullable(),
  reference: z.string().nullable(),
  amount_usd: z.number(),
  amount_bs: z.number().nullable(),
  currency: z.string(),
});
