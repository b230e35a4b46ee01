import type { Router } from 'express';
import { z } from 'zod';
import { adjustCredit } from '../../../commands/credit/handlers.js';
import { idempotentId } from '../../../commands/idempotency.js';
import { metadataOf } from '../../../commands/origin.js';
import { CREDIT_BUCKETS } from '../../../domain/credit/events.js';
import type { ApiContext } from '../../apiContext.js';
import { creditTransactionsOf, transactionsOfEvent } from '../../../projections/credit/creditViews.js';
import { requireRole, type Actor } from '../../auth.js';
import { CreditTransaction, toCreditTransaction } from '../../credit/routes.js';
import { CustomerParams, limit } from '../../orders/schemas.js';
import { usdAmount } from '../../schemas.js';
import { visibleCustomerOf } from './routes.js';
import { IdempotencyHeaders, idempotencyKeyOf } from '../../idempotencyKey.js';
import { defineRoute } from '../../route.js';
import { readBack } from '../../readBack.js';
import { decodeCursor, encodeCursor, isIdKey, pageSchema } from '../../cursor.js';

const AdjustBody = z.object({
  type: z.enum(['credit', 'debit']),
  scope: z.enum(CREDIT_BUCKETS).default('ANY'),
  amount: usdAmount(1_000_000),
  reason: z.string().trim().min(10).max(500),
});

const TRANSACTION_TYPES = [
  'PROMO_GRANT',
  'ORDER_REDEMPTION',
  'ORDER_FORFEIT',
  'ORDER_REFUND',
  'MANUAL_ADJUSTMENT',
] as const;

const HistoryQuery = z.object({
  type: z.enum(TRANSACTION_TYPES).optional(),
  scope: z.enum(CREDIT_BUCKETS).optional(),
  limit: limit(25),
  cursor: z.string().max(100).optional(),
});

/** Manual credit adjustments and the credit history of one customer. */
export const adminCustomerCreditRoutes = (ctx: ApiContext, router: Router): void => {
  const admin = requireRole(ctx.auth, 'ADMIN');
  const tags = ['admin-customers'];
  /** The same city scope as the customer detail (docs/domain-rules.md, who is who). */
  const customerId = async (actor: Actor, raw: unknown): Promise<number> =>
    (await visibleCustomerOf(ctx, actor, raw)).id;

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/customers/:customerId/credit/adjust',
      summary:
        'Credit or debit a customer’s promotional credit; an Idempotency-Key ' +
        'repeated within 24 hours answers the first transaction',
      tags,
      params: CustomerParams,
      headers: IdempotencyHeaders,
      guards: admin,
      body: AdjustBody,
      responses: { 200: { description: 'The transaction', schema: z.object({ transaction: CreditTransaction }) } },
      errors: { 403: ['Forbidden'], 404: ['CustomerNotFound'], 409: ['Conflict'] },
    },
    async ({ params, body, actor, req }) => {
      const clientId = await customerId(actor, params.customerId);
      const transactionOf = async (eventId: string) => (await transactionsOfEvent(ctx.db, eventId))[0];
      const { id, booked } = await idempotentId(
        { scope: `credit-adjustment/${clientId}`, adminId: actor.id, key: idempotencyKeyOf(req), now: ctx.clock.now() },
        async (eventId) => (await transactionOf(eventId))?.created_at ?? null,
      );
      // A repeat answers the first booking; a twin racing it appends nothing (its event id is taken) and
      // gets the first booking's position from the store.
      const position = booked
        ? 0
        : (
            await adjustCredit(
              ctx,
              {
                clientId,
                adminId: actor.id,
                superAdmin: actor.superAdmin === true,
                direction: body.type === 'credit' ? 'CREDIT' : 'DEBIT',
                scope: body.scope,
                amountCents: body.amount,
                reason: body.reason,
              },
              metadataOf(actor, req.id),
              id,
            )
          ).position;
      const transaction = await readBack(ctx, position, () => transactionOf(id));
      return { transaction: toCreditTransaction(transaction) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/customers/:customerId/credit/transactions',
      summary: 'A customer’s credit history (cursor, newest first)',
      tags,
      params: CustomerParams,
      guards: admin,
      auditor: 'read',
      query: HistoryQuery,
      responses: { 200: { description: 'One page', schema: pageSchema(CreditTransaction) } },
      errors: { 403: ['Forbidden'], 404: ['CustomerNotFound'] },
    },
    async ({ params, query, actor }) => {
      const clientId = await customerId(actor, params.customerId);
      const beforeId = decodeCursor(query.cursor, isIdKey)?.[0];
      const { rows, hasMore } = await creditTransactionsOf(ctx.db, clientId, {
        type: query.type,
        scope: query.scope,
        limit: query.limit,
        beforeId,
      });
      const last = rows.at(-1);
      return {
        items: rows.map(toCreditTransaction),
        next_cursor: hasMore && last ? encodeCursor([last.id]) : null,
        has_more: hasMore,
      };
    },
  );
};
