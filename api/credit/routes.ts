import { z } from 'zod';
import type { Router } from 'express';
import { centsToUsd } from '../../domain/money.js';
import type { ApiContext } from '../apiContext.js';
import {
  creditBalanceOf,
  type CreditBalanceRow,
  type CreditTransactionRow,
} from '../../projections/credit/creditViews.js';
import { requireRole } from '../auth.js';
import { defineRoute } from '../route.js';

/** The credit summary; a negative bucket (after a debit) offers nothing. */
export const toCreditSummary = (b: CreditBalanceRow): z.infer<typeof CreditSummary> => ({
  anyUSD: centsToUsd(b.any_cents),
  ordersUSD: centsToUsd(b.orders_cents),
  surplusUSD: centsToUsd(b.surplus_cents),
  usableOnOrdersUSD: centsToUsd(Math.max(0, b.orders_cents) + Math.max(0, b.any_cents)),
  usableOnSurplusUSD: centsToUsd(Math.max(0, b.surplus_cents) + Math.max(0, b.any_cents)),
  earnedUSD: centsToUsd(b.earned_cents),
  redeemedUSD: centsToUsd(b.redeemed_cents),
});

export const toCreditTransaction = (
  t: Omit<CreditTransactionRow, 'id'> & { id: number },
): z.infer<typeof CreditTransaction> => ({
  id: t.id,
  type: t.type,
  scope: t.scope,
  direction: t.direction,
  amount_usd: centsToUsd(t.amount_cents),
  balance_after_usd: centsToUsd(t.balance_after_cents),
  order_id: t.order_id,
  promotion_id: t.promotion_id,
  description: t.description,
  created_at: t.created_at.toISOString(),
});

export const CreditSummary = z
  .object({
    anyUSD: z.number(),
    ordersUSD: z.number(),
    surplusUSD: z.number(),
    usableOnOrdersUSD: z.number(),
    usableOnSurplusUSD: z.number(),
    earnedUSD: z.number(),
    redeemedUSD: z.number(),
  })
  .openapi('CreditSummary');

export const CreditTransaction = z
  .object({
    id: z.number().int(),
    type: z.string(),
    scope: z.string(),
    direction: z.string(),
    amount_usd: z.number(),
    balance_after_usd: z.number(),
    order_id: z.number().int().nullable(),
    promotion_id: z.number().int().nullable(),
    description: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('CreditTransaction');

export const creditRoutes = (ctx: ApiContext, router: Router): void => {
  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/credit/me',
      summary: 'The customer’s promotional credit summary',
      tags: ['credit'],
      guards: requireRole(ctx.auth, 'CLIENT'),
      responses: { 200: { description: 'The credit buckets in USD', schema: CreditSummary } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ actor }) => toCreditSummary(await creditBalanceOf(ctx.db, actor.id)),
  );
};
