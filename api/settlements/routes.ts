import { dateOrderRule } from '../crossFieldRules.js';
import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler, Router } from 'express';
import { z } from 'zod';
import { applyPayprovNotice } from '../../commands/settlement/webhook.js';
import { loadSettlementConfig } from '../../commands/settlement/settlementConfig.js';
import { notFound, unauthorized } from '../../domain/errors.js';
import { RECEIPT_STATUSES } from '../../domain/settlement/events.js';
import type { ApiContext } from '../apiContext.js';
import { dayRange, driverReceipts, receiptById } from '../../projections/settlement/receiptQueries.js';
import {
  DriverReceiptDetail,
  DriverReceiptItem,
  toDriverReceiptDetail,
  toDriverReceiptItem,
} from '../admin/settlements/views.js';
import { authenticate } from '../auth.js';
import { metadataOf } from '../../commands/origin.js';
import { idFrom, limit } from '../orders/schemas.js';
import { dateWindow, inDateOrder } from '../schemas.js';
import { defineRoute, PathId, type ErrorAnswers } from '../route.js';
import { decodeCursor, encodeCursor, isTimeIdKey, pageSchema } from '../cursor.js';

const SettlementsQuery = z
  .object({
    status: z.enum(RECEIPT_STATUSES).optional(),
    ...dateWindow,
    limit: limit(25),
    cursor: z.string().max(200).optional(),
  })
  .refine(...inDateOrder);

const Notice = z.object({
  internal_id: z.string().min(1).max(100),
  transaction_id: z.string().min(1).max(100),
  status: z.enum(['ACCP', 'PEND', 'PROC', 'RJCT', 'CANC']),
  rejected_code: z.string().max(50).nullish(),
  ref_ibp: z.string().max(100).nullish(),
});
const TokenQuery = z.object({ token: z.string().optional() });

const sameSecret = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The payout webhook's shared secret, from the query string; checked before the body is read. */
const payprovToken =
  (ctx: ApiContext): RequestHandler =>
  (req, _res, next) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    if (sameSecret(token, ctx.config.PAYOUT_WEBHOOK_TOKEN)) return next();
    ctx.metrics.webhooksRefused.inc({ webhook: 'payout' });
    next(unauthorized('Unauthorized', 'Missing or wrong webhook token.'));
  };

/** The driver's own receipts and the payout provider's webhook. */
export const settlementRoutes = (ctx: ApiContext, router: Router) => {
  const tags = ['settlements'];
  const anyone = [authenticate(ctx.auth)];

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/wallet/me/settlements',
      summary: 'Own settlement receipts, newest first',
      tags,
      guards: anyone,
      query: SettlementsQuery,
      rules: dateOrderRule(),
      responses: { 200: { description: 'A cursor page', schema: pageSchema(DriverReceiptItem) } },
    },
    async ({ query, actor }) => {
      if (!actor.driverId) return { items: [], next_cursor: null, has_more: false };
      const after = decodeCursor(query.cursor, isTimeIdKey);
      const config = await loadSettlementConfig(ctx);
      const { fromAt, beforeAt } = dayRange(query.date_from, query.date_to, config.timezone);
      const rows = await driverReceipts(
        ctx.db,
        { driverId: actor.driverId, status: query.status, fromAt, beforeAt },
        { limit: query.limit + 1, after },
      );
      const items = rows.slice(0, query.limit);
      const hasMore = rows.length > query.limit;
      const last = items[items.length - 1]?.issued;
      return {
        items: items.map(toDriverReceiptItem),
        next_cursor: hasMore && last ? encodeCursor([last.issuedAt, last.recordId]) : null,
        has_more: hasMore,
      };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/wallet/me/settlements/:id',
      summary: 'One own receipt with its lines',
      tags,
      guards: anyone,
      params: z.object({ id: PathId }),
      responses: { 200: { description: 'The receipt', schema: z.object({ settlement: DriverReceiptDetail }) } },
      errors: { 404: ['ReceiptNotFound'] },
    },
    async ({ params, actor }) => {
      const s = await receiptById(
        ctx.db,
        idFrom(params.id, () => notFound('ReceiptNotFound', 'Receipt not found.')),
      );
      if (!s || !actor.driverId || s.issued!.driverId !== actor.driverId)
        throw notFound('ReceiptNotFound', 'Receipt not found.');
      return { settlement: toDriverReceiptDetail(s) };
    },
  );

  const webhook = async (notice: z.infer<typeof Notice>, metadata: ReturnType<typeof metadataOf>) => {
    // Answered once the read models show the change, like every other write.
    await ctx.settle(
      await applyPayprovNotice(ctx, notice, { ...metadata, actor: { id: null, role: 'PAYOUT_PROVIDER' } }),
    );
    return { message: 'ok' };
  };
  const webhookSpec = {
    path: '/settlements/webhook/payprov',
    tags: ['payments'],
    auth: false,
    security: [{ payoutToken: [] }],
    guards: [payprovToken(ctx)],
    responses: {
      200: {
        description: 'Accepted (also for an unknown or already resolved internal_id)',
        schema: z.object({ message: z.literal('ok') }),
      },
    },
    // 409 when the receipt's stream stays busy: the provider delivers the notice again.
    errors: { 401: ['Unauthorized'], 409: ['Conflict'] } satisfies ErrorAnswers,
  };

  defineRoute(
    router,
    ctx.openapi,
    { ...webhookSpec, method: 'post', summary: 'Payout confirmation webhook', query: TokenQuery, body: Notice },
    ({ body, req }) => webhook(body, metadataOf(null, req.id)),
  );
  defineRoute(
    router,
    ctx.openapi,
    {
      ...webhookSpec,
      method: 'get',
      summary: 'Payout confirmation webhook (fields in the query)',
      query: Notice.extend(TokenQuery.shape),
    },
    ({ query, req }) => webhook(query, metadataOf(null, req.id)),
  );
};
