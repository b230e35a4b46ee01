import type { Router } from 'express';
import { z } from 'zod';
import type { AppContext, AppModule } from '../../infra/context.js';
import { exchangeRateMigrations, listExchangeRates, recordExchangeRate, seedOfficialRate, type ExchangeRate } from '../../projections/exchangeRates/exchangeRates.js';
import { requireRole } from '../auth.js';
import { defineRoute } from '../route.js';

const RateBody = z.object({
  currency: z.literal('VES'),
  rate: z
    .number()
    .min(0.01, 'must be at least 0.01 bolivars per USD')
    .max(1_000_000_000, 'must be at most 1000000000')
    .refine((n) => Number(n.toFixed(8)) === n, 'at most 8 decimals'),
});

const RatePage = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(25),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
});

const RateView = z.object({ id: z.number().int(), currency: z.literal('VES'), rate: z.number(), rate_cents: z.number().int(), effective_at: z.string() }).openapi('ExchangeRate');
const PageMeta = z.object({ total: z.number().int(), per_page: z.number().int(), current_page: z.number().int(), last_page: z.number().int() });

const toView = (r: ExchangeRate): z.infer<typeof RateView> => ({
  id: r.id,
  currency: r.currency,
  rate: r.rate,
  rate_cents: r.rateCents,
  effective_at: r.effectiveAt.toISOString(),
});

const routes = (ctx: AppContext, router: Router): void => {
  const admin = requireRole(ctx.auth, 'ADMIN');

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/exchange-rates',
      summary: 'Record the official VES rate (bolivars per USD), in force from now on',
      tags: ['exchange-rates'],
      guards: admin,
      body: RateBody,
      responses: { 201: { description: 'Recorded', schema: z.object({ rate: RateView }) } },
      errors: [403],
    },
    async ({ body, actor, res }) => {
      const rate = await recordExchangeRate(ctx.db, { currency: body.currency, rate: body.rate, effectiveAt: ctx.clock.now(), createdBy: actor.id });
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
      errors: [403],
    },
    async ({ query }) => {
      const { items, total } = await listExchangeRates(ctx.db, query);
      return {
        items: items.map(toView),
        meta: { total, per_page: query.limit, current_page: query.page, last_page: Math.max(1, Math.ceil(total / query.limit)) },
      };
    },
  );
};

export const exchangeRatesModule: AppModule = {
  name: 'exchangeRates',
  migrations: exchangeRateMigrations,
  async init(ctx) {
    if (ctx.config.APP_ENV === 'production') return;
    const official = ctx.config.OFFICIAL_RATE_VES;
    if (official !== undefined) {
      await seedOfficialRate(ctx.db, official, ctx.clock.now());
      return;
    }
    // A fresh development start has no rate, and every order would be 422 ExchangeRateUnavailable: a
    // made-up rate keeps the quick start working, written once and logged loudly so nobody mistakes it.
    const development = ctx.config.DEVELOPMENT_RATE_VES;
    if (development > 0 && (await seedOfficialRate(ctx.db, development, ctx.clock.now()))) {
      ctx.logger.warn({ rate: development, currency: 'VES' }, 'DEVELOPMENT exchange rate seeded (not a real rate): set OFFICIAL_RATE_VES or POST /api/v1/admin/exchange-rates');
    }
  },
  routes,
};
