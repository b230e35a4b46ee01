import type { Router } from 'express';
import type { AppContext } from '../../infra/context.js';
import { authenticate } from '../auth.js';
import { defineRoute } from '../route.js';

export const citiesRoutes = (ctx: AppContext, router: Router): void => {
  defineRoute(router, ctx.openapi, { method: 'get', path: '/cities', summary: 'Cities served, Caracas first', tags: ['cities'], guards: [authenticate(ctx.auth)] }, async () => ({
    cities: await ctx.db.selectFrom('cities').select(['id', 'name']).orderBy('sort_order').execute(),
  }));
};
