import type { Router } from 'express';
import { z } from 'zod';
import { forbidden, notFound } from '../../domain/errors.js';
import { centsToUsd } from '../../domain/money.js';
import { bolivarCentsOf } from '../../domain/payment/payment.js';
import { metadataOf } from '../../commands/origin.js';
import {
  paymentFormOfOrder,
  prepareDebit,
  reportDebit,
  reportFormPayment,
  requestPayment,
  streamHead,
} from '../../commands/payment/handlers.js';
import { paymentStream } from '../../domain/payment/events.js';
import { receiveWebhook } from '../../commands/payment/reactions.js';
import { WEBHOOK_PROVIDERS } from '../../infra/payments/paymentProviders.js';
import type { ApiContext } from '../apiContext.js';
import { findPaymentRow, latestPaymentOfOrder, type PaymentRow } from '../../projections/payments/paymentQueries.js';
import { authenticate } from '../auth.js';
import { defineRoute } from '../route.js';
import { idFrom, OrderParams } from '../orders/schemas.js';
import { FormReportSchema, PaymentSchema, toFormReportView, toPaymentView } from './views.js';
import { readBack } from '../readBack.js';
import { assertOrderInScope } from '../admin/cityScope.js';

const RequestBody = z.object({ method: z.string().trim().min(1).max(40) });

const Payer = {
  bank_code: z.string().trim().min(1).max(20),
  id_number: z.string().trim().min(1).max(20),
  phone: z.string().trim().min(7).max(20),
  name: z.string().trim().min(1).max(120).optional(),
};
const PrepareBody = z.object(Payer);
const ReportBody = z.object({ ...Payer, otp: z.string().trim().min(1).max(12) });

const FormReportBody = z.object({
  values: z
    .array(z.object({ index: z.number().int().min(0).max(9999), value: z.string().max(1000) }))
    .min(1)
    .max(50),
});

/**
 * Any other provider is the spec's 400 UnsupportedProvider (not a 422), so the enum is the document's only: the
 * receiving command checks it.
 */
const ProviderParams = z.object({ provider: z.string().openapi({ enum: [...WEBHOOK_PROVIDERS] }) });

const PaymentEnvelope = z.object({ payment: PaymentSchema });

const payerOf = (b: z.output<typeof PrepareBody>) => ({
  bankCode: b.bank_code,
  idNumber: b.id_number,
  phone: b.phone,
  name: b.name ?? null,
});

export const paymentRoutes = (ctx: ApiContext, router: Router): void => {
  const any = [authenticate(ctx.auth)];
  const tags = ['payments'];
  const orderId = (params: Record<string, unknown>, code: 'OrderNotFound' | 'NotFound') =>
    idFrom(params.orderId, () => notFound(code, 'Order not found.'));

  /** Read-your-writes: the payment as the read model holds it once the written position is applied. */
  const paymentAfter = async (position: number, paymentId: number): Promise<PaymentRow> => {
    // The payment may have been written by a concurrent request: settle on its stream's head too.
    return readBack(ctx, Math.max(position, await streamHead(ctx, paymentStream(paymentId))), () =>
      findPaymentRow(ctx.db, paymentId),
    );
  };

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/orders/:orderId/payment',
      summary: "Create or refresh the order's payment intent",
      tags,
      guards: any,
      params: OrderParams,
      body: RequestBody,
      responses: {
        200: {
          description: 'The intent and, for redirect methods, the checkout link',
          schema: PaymentEnvelope.extend({ checkoutUrl: z.string().nullable() }),
        },
      },
      errors: {
        400: ['PaymentError'],
        403: ['Forbidden'],
        404: ['OrderNotFound'],
        409: ['Conflict'],
        422: ['PaymentRejectionFailed', 'Unprocessable'],
      },
    },
    async ({ params, body, actor, req }) => {
      const { payment, position } = await requestPayment(
        ctx,
        actor,
        orderId(params, 'OrderNotFound'),
        body.method,
        metadataOf(actor, req.id),
      );
      const row = await paymentAfter(position, payment.id);
      return { payment: toPaymentView(row), checkoutUrl: row.status === 'PENDING' ? row.checkout_url : null };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/orders/:orderId/payment',
      summary: "The order's payment (owner only)",
      tags,
      guards: any,
      params: OrderParams,
      responses: { 200: { description: 'The payment', schema: PaymentEnvelope } },
      errors: { 403: ['Forbidden'], 404: ['NotFound', 'OrderNotFound'] },
    },
    async ({ params, actor }) => {
      await assertOrderInScope(ctx, actor, orderId(params, 'OrderNotFound'));
      const row = await latestPaymentOfOrder(ctx.db, orderId(params, 'NotFound'));
      if (!row) throw notFound('NotFound', 'The order has no payment.');
      if (actor.role !== 'CLIENT' || row.user_id !== actor.id)
        throw forbidden('Forbidden', 'The payment belongs to another user.');
      return { payment: toPaymentView(row) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/orders/:orderId/payment/prepare',
      summary: "Immediate bank debit, step 1: the payer's bank sends an OTP",
      tags,
      guards: any,
      params: OrderParams,
      body: PrepareBody,
      responses: {
        200: { description: 'OTP requested', schema: PaymentEnvelope.extend({ prepared: z.literal(true) }) },
      },
      errors: {
        400: ['PaymentError'],
        403: ['Forbidden'],
        404: ['NotFound'],
        409: ['Conflict'],
        422: ['PaymentRejectionFailed', 'Unprocessable'],
      },
    },
    async ({ params, body, actor, req }) => {
      const { paymentId, position } = await prepareDebit(
        ctx,
        actor,
        orderId(params, 'NotFound'),
        payerOf(body),
        metadataOf(actor, req.id),
      );
      return { prepared: true, payment: toPaymentView(await paymentAfter(position, paymentId)) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/orders/:orderId/payment/report',
      summary: 'Immediate bank debit, step 2: submit the bank OTP',
      tags,
      guards: any,
      params: OrderParams,
      body: ReportBody,
      responses: { 200: { description: 'The payment after the debit', schema: PaymentEnvelope } },
      errors: {
        400: ['PaymentError'],
        403: ['Forbidden'],
        404: ['NotFound'],
        409: ['Conflict'],
        422: ['ExchangeRateUnavailable', 'PaymentApprovalFailed', 'PaymentRejectionFailed', 'Unprocessable'],
      },
    },
    async ({ params, body, actor, req }) => {
      const { paymentId, position } = await reportDebit(
        ctx,
        actor,
        orderId(params, 'NotFound'),
        { ...payerOf(body), otp: body.otp },
        metadataOf(actor, req.id),
      );
      return { payment: toPaymentView(await paymentAfter(position, paymentId)) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/orders/:orderId/payment/form',
      summary: "The order's payment form, what to show, what to fill and the amount due",
      tags,
      guards: any,
      params: OrderParams,
      responses: {
        200: {
          description: 'The form',
          schema: z.object({
            form: z.object({
              id: z.number().int(),
              name: z.string(),
              internal_name: z.string().nullable(),
              category: z.string().nullable(),
              currency: z.string(),
            }),
            display: z.array(
              z.object({
                type: z.string(),
                index: z.number().int(),
                label: z.string().nullable(),
                content: z.string().nullable(),
              }),
            ),
            fields: z.array(
              z.object({
                index: z.number().int(),
                label: z.string(),
                required: z.boolean(),
                hint: z.string().nullable(),
                input_type: z.string().nullable(),
              }),
            ),
            amount: z.object({
              usd: z.number(),
              currency: z.string(),
              bs: z.number().optional(),
              official_rate: z.number().optional(),
            }),
          }),
        },
      },
      errors: { 403: ['Forbidden'], 404: ['NotFound'], 409: ['Conflict'], 422: ['Unprocessable'] },
    },
    async ({ params, actor }) => {
      const { order, form, rateCents } = await paymentFormOfOrder(ctx, actor, orderId(params, 'NotFound'));
      const chargedCents = order.pricing.clientChargedCents;
      return {
        form: {
          id: form.id,
          name: form.name,
          internal_name: form.internalName,
          category: form.category,
          currency: form.currency,
        },
        display: form.display.map((d) => ({ type: d.type, index: d.index, label: d.label, content: d.content })),
        fields: form.fields.map((f) => ({
          index: f.index,
          label: f.label,
          required: f.required,
          hint: f.hint,
          input_type: f.input_type,
        })),
        amount: {
          usd: centsToUsd(chargedCents),
          currency: form.currency,
          ...(rateCents !== null
            ? { bs: centsToUsd(bolivarCentsOf(chargedCents, rateCents)), official_rate: centsToUsd(rateCents) }
            : {}),
        },
      };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/orders/:orderId/payment/form',
      summary: 'Report a manual payment (values by field index)',
      tags,
      guards: any,
      params: OrderParams,
      body: FormReportBody,
      responses: {
        200: {
          description: 'The reported payment, awaiting review',
          schema: z.object({ payment: FormReportSchema }),
        },
      },
      errors: {
        400: ['PaymentError'],
        403: ['Forbidden'],
        404: ['NotFound'],
        409: ['Conflict'],
        422: ['ExchangeRateUnavailable', 'PaymentRejectionFailed', 'Unprocessable'],
      },
    },
    async ({ params, body, actor, req }) => {
      const { paymentId, position } = await reportFormPayment(
        ctx,
        actor,
        orderId(params, 'NotFound'),
        body.values,
        metadataOf(actor, req.id),
      );
      return { payment: toFormReportView(await paymentAfter(position, paymentId)) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/payments/webhook/:provider',
      summary: 'Provider payment webhook (HMAC-SHA256 of the raw body in X-Signature: sha256=<hex>)',
      tags,
      auth: false,
      security: [{ webhookSignature: [] }],
      params: ProviderParams,
      // Read raw, as signed: documented only.
      bodyContent: {
        'application/json': z
          .record(z.string(), z.unknown())
          .openapi({ description: "The provider's payment event, as it signed it (its fields are the provider's)" }),
      },
      responses: { 204: { description: 'Verified and applied (once, however often delivered)', schema: null } },
      errors: {
        400: {
          ids: ['InvalidWebhook', 'UnsupportedProvider'],
          description: 'UnsupportedProvider, InvalidWebhook (signature, body)',
        },
        404: ['NotFound'],
        500: { ids: ['EmptyWebhookBody'], description: 'An empty body: the provider retries the delivery' },
      },
    },
    async ({ params, req }) => {
      const position = await receiveWebhook(ctx, {
        provider: params.provider,
        rawBody: req.rawBody,
        signature: req.get('x-signature'),
        requestId: typeof req.id === 'string' ? req.id : undefined,
      });
      await ctx.settle(position);
      return undefined;
    },
  );
};
