import type { Router } from 'express';
import { announceReferenceChange } from '../../commands/referenceCache.js';
import { z } from 'zod';
import type { ApiContext } from '../apiContext.js';
import { setExchangeRate } from '../../commands/exchangeRates/setRate.js';
import { listExchangeRates, type ExchangeRate } from '../../stores/exchangeRates/exchangeRates.js';
import { requireRole } from '../auth.js';
import { defineRoute } from '../route.js';
import { hasDecimals, queryInteger } from '../schemas.js';

const RateBody = z.object({
  currency: z.literal('VES'),
  rate: z
    .number()
    .min(0.01, 'must be at least 0.01 bolivars per USD')
    .max(1_000_000_000, 'must be at most 1000000000')
    .refine((n) => hasDecimals(n, 8), 'at most 8 decimals')
    .openapi({ multipleOf: 1e-8 }),
});

const RatePage = z.object({
  limit: queryInteger(1, 100).default(25),
  page: queryInteger(1, 1_000_000).default(1),
});

const RateView = z
  .object({
    id: z.number().int(),
    currency: z.literal('VES'),
    rate: z.number(),
    rate_cents: z.number().int(),
    effective_at: z.string(),
  })
  .openapi('ExchangeRate');
const PageMeta = z.object({
  total: z.number().int(),
  per_page: z.number().int(),
  current_page: z.number().int(),
  last_page: z.number().int(),
});

const toView = (r: ExchangeRate): z.infer<typeof RateView> => ({
  id: r.id,
  currency: r.currency,
  rate: r.rate,
  rate_cents: r.rateCents,
  effective_at: r.effectiveAt.toISOString(),
});

export const exchangeRatesRoutes = (ctx: ApiContext, router: Router): void => {
  const admin = requireRole(ctx.auth, 'ADMIN');

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/exchange-rates',
      summary: 'Record the official VES rate (bolivars per USD), in force from now on (super admin)',
      tags: ['exchange-rates'],
      guards: requireRole(ctx.auth, 'SUPER_ADMIN'),
      body: RateBody,
      responses: { 201: { description: 'Recorded', schema: z.object({ rate: RateView }) } },
      errors: { 403: { ids: ['Forbidden'], description: 'Forbidden: super admins only' } },
    },
    async ({ body, actor, req, res }) => {
      const rate = await setExchangeRate(ctx, body, actor, req.id);
      await announceReferenceChange(ctx, { kind: 'rates' });
      res.status(201);
      return { rate: toView(rate) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/exchange-rates',
      summary: 'The official rate series, newest first',
      tags: ['exchange-rates'],
      guards: admin,
      query: RatePage,
      responses: { 200: { description: 'One page', schema: z.object({ items: z.array(RateView), meta: PageMeta }) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ query }) => {
      const { items, total } = await listExchangeRates(ctx.db, query);
      return {
        items: items.map(toView),
        meta: {
          total,
          per_page: query.limit,
          current_page: query.page,
          last_page: Math.max(1, Math.ceil(total / query.limit)),
        },
      };
    },
  );
};
