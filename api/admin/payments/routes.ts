import type { Router } from 'express';
import { z } from 'zod';
import { notFound } from '../../../domain/errors.js';
import { centsToUsd } from '../../../domain/money.js';
import { metadataOf } from '../../../commands/origin.js';
import { orderStream } from '../../../domain/order/events.js';
import { approvePayment, rejectPaymentByAdmin, streamHead } from '../../../commands/payment/handlers.js';
import { paymentStream } from '../../../domain/payment/events.js';
import type { ApiContext } from '../../apiContext.js';
import { findOrderRow } from '../../../projections/orders/orderQueries.js';
import {
  findPaymentRow,
  REVIEW_METHODS,
  reviewedPayments,
  reviewQueue,
} from '../../../projections/payments/paymentQueries.js';
import { REVIEW_OUTCOMES } from '../../../projections/payments/paymentReviews.js';
import { dayRange } from '../../../projections/settlement/receiptQueries.js';
import { loadSettlementConfig } from '../../../commands/settlement/settlementConfig.js';
import { dateOrderRule } from '../../crossFieldRules.js';
import { requireRole } from '../../auth.js';
import { pageOf } from '../../openapi.js';
import { PaymentSchema } from '../../payments/views.js';
import { defineRoute, PathId } from '../../route.js';
import { idFrom, page } from '../../orders/schemas.js';
import { toReviewedItem, toReviewItem } from '../../payments/views.js';
import { readBack } from '../../readBack.js';
import { reportsProjector } from '../../../projections/reports/reportsProjector.js';
import { assertPaymentInScope, cityScopeOf } from '../cityScope.js';
import { dateWindow, inDateOrder, queryInteger } from '../../schemas.js';

const QueueQuery = z.object({
  method: z.enum(REVIEW_METHODS).optional(),
  limit: queryInteger(1, 100).default(25),
  page,
});

const ReviewedQuery = z
  .object({
    outcome: z.enum(REVIEW_OUTCOMES).optional().openapi({ description: "The admin's decision" }),
    method: z.enum(REVIEW_METHODS).optional(),
    date_from: dateWindow.date_from.openapi({
      description: 'First day of the decision, in the settlement time zone',
    }),
    date_to: dateWindow.date_to.openapi({
      description: 'Last day of the decision, in the settlement time zone; on or after date_from',
    }),
    limit: queryInteger(1, 100).default(25),
    page,
  })
  .refine(...inDateOrder);

// At least 10 characters once trimmed: the pattern says so, since minLength counts the spaces around it.
const ReasonBody = z.object({
  reason: z.string().trim().min(10).max(500).openapi({ pattern: '^\\s*\\S[\\s\\S]{8,}\\S\\s*$' }),
});
const PaymentParams = z.object({ paymentId: PathId });

const paymentIdFrom = (params: Record<string, unknown>) =>
  idFrom(params.paymentId, () => notFound('NotFound', 'Payment not found.'));

/** Back-office payment review. */
export const ReviewItem = PaymentSchema.extend({
  amount_bs: z.number().nullable().openapi({ description: 'The amount in bolivars; null without a bolivar amount' }),
  notes: z.string().nullable().openapi({ description: "The order's notes for the delivery" }),
  reported: z
    .object({ phone: z.string().nullable(), bank: z.string().nullable() })
    .nullable()
    .openapi({ description: 'The payer’s phone and bank as reported on the payment form; only for PAYMENT_FORM' }),
  reported_values: z.unknown().openapi({ description: 'What the customer reported, by form field' }),
  actionable: z.boolean(),
  order: z.object({
    id: z.number().int(),
    address: z.string().nullable(),
    liters_requested: z.number().int().nullable(),
    status: z.string().nullable(),
  }),
  client: z.object({ id: z.number().int(), name: z.string().nullable(), phone: z.string().nullable() }),
});

/** A reviewed payment: the payment as it is now, its order and client, and the decision on it. */
export const ReviewedItem = ReviewItem.omit({ actionable: true }).extend({
  review: z.object({
    outcome: z.enum(REVIEW_OUTCOMES),
    reason: z.string().nullable().openapi({ description: 'The reason the admin gave' }),
    reviewed_at: z.string(),
    admin: z.object({
      id: z.number().int(),
      name: z.string().nullable().openapi({ description: 'Null when the admin account no longer exists' }),
    }),
  }),
});

export const adminPaymentRoutes = (ctx: ApiContext, router: Router): void => {
  const admin = requireRole(ctx.auth, 'ADMIN');
  const tags = ['admin-payments'];

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/payments/pending',
      summary: 'Payments awaiting review, oldest first',
      tags,
      guards: admin,
      auditor: 'read',
      query: QueueQuery,
      responses: { 200: { description: 'Oldest first', schema: pageOf(ReviewItem) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ query, actor }) => {
      // A city-limited queue finds the orders' cities in the reports' read model: commands do not wait for it.
      const scope = await cityScopeOf(ctx, actor);
      if (!scope.all) await ctx.caughtUp(reportsProjector.name);
      const { items, total } = await reviewQueue(ctx.db, { ...query, scope });
      return {
        items: items.map(toReviewItem),
        meta: {
          total,
          per_page: query.limit,
          current_page: query.page,
          last_page: Math.max(1, Math.ceil(total / query.limit)),
        },
      };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/payments/reviewed',
      summary: 'Payments an admin approved or rejected, newest decision first (beyond the spec: decision 0103)',
      tags,
      guards: admin,
      auditor: 'read',
      query: ReviewedQuery,
      rules: dateOrderRule(),
      responses: { 200: { description: 'Newest decision first', schema: pageOf(ReviewedItem) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ query, actor }) => {
      const scope = await cityScopeOf(ctx, actor);
      if (!scope.all) await ctx.caughtUp(reportsProjector.name);
      const { timezone } = await loadSettlementConfig(ctx);
      const { fromAt, beforeAt } = dayRange(query.date_from, query.date_to, timezone);
      const { items, total } = await reviewedPayments(ctx.db, {
        outcome: query.outcome,
        method: query.method,
        fromAt,
        beforeAt,
        limit: query.limit,
        page: query.page,
        scope,
      });
      return {
        items: items.map(toReviewedItem),
        meta: {
          total,
          per_page: query.limit,
          current_page: query.page,
          last_page: Math.max(1, Math.ceil(total / query.limit)),
        },
      };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/payments/:paymentId/approve',
      summary: 'Approve a payment: it and its order become CONFIRMED',
      tags,
      guards: admin,
      params: PaymentParams,
      body: ReasonBody,
      responses: {
        200: {
          description: 'The payment and its order, CONFIRMED',
          schema: z.object({
            payment: z.object({
              id: z.number().int(),
              method: z.string(),
              status: z.string(),
              confirmed_at: z.string().nullable(),
              amount_usd: z.number(),
            }),
            order: z.object({ id: z.number().int(), status: z.string().nullable() }),
          }),
        },
      },
      errors: { 403: ['Forbidden'], 404: ['NotFound'], 409: ['Conflict'], 422: ['PaymentApprovalFailed'] },
    },
    async ({ params, body, actor, req }) => {
      const paymentId = paymentIdFrom(params);
      await assertPaymentInScope(ctx, actor, paymentId);
      const { position, payment } = await approvePayment(ctx, actor, paymentId, body.reason, metadataOf(actor, req.id));
      // A concurrent webhook may have confirmed both streams first: settle on their heads too.
      const heads = await Promise.all([
        streamHead(ctx, paymentStream(paymentId)),
        streamHead(ctx, orderStream(payment.orderId)),
      ]);
      const p = await readBack(ctx, Math.max(position, ...heads), () => findPaymentRow(ctx.db, paymentId));
      const order = await findOrderRow(ctx.db, p.order_id);
      return {
        payment: {
          id: p.id,
          method: p.method,
          status: p.status,
          confirmed_at: p.confirmed_at ? new Date(p.confirmed_at).toISOString() : null,
          amount_usd: centsToUsd(p.amount_cents),
        },
        order: { id: p.order_id, status: order?.status ?? null },
      };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/payments/:paymentId/reject',
      summary: 'Reject a payment: it becomes FAILED with the reason',
      tags,
      guards: admin,
      params: PaymentParams,
      body: ReasonBody,
      responses: {
        200: {
          description: 'The payment, FAILED',
          schema: z.object({
            payment: z.object({
              id: z.number().int(),
              method: z.string(),
              status: z.string(),
              failure_reason: z.string().nullable(),
            }),
          }),
        },
      },
      errors: { 403: ['Forbidden'], 404: ['NotFound'], 409: ['Conflict'], 422: ['PaymentRejectionFailed'] },
    },
    async ({ params, body, actor, req }) => {
      const paymentId = paymentIdFrom(params);
      await assertPaymentInScope(ctx, actor, paymentId);
      const { position } = await rejectPaymentByAdmin(ctx, actor, paymentId, body.reason, metadataOf(actor, req.id));
      const p = await readBack(ctx, Math.max(position, await streamHead(ctx, paymentStream(paymentId))), () =>
        findPaymentRow(ctx.db, paymentId),
      );
      return { payment: { id: p.id, method: p.method, status: p.status, failure_reason: p.failure_reason } };
    },
  );
};
