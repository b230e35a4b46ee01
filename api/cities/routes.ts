import { z } from 'zod';
import type { Router } from 'express';
import type { ApiContext } from '../apiContext.js';
import { authenticate } from '../auth.js';
import { defineRoute } from '../route.js';
import { listCities } from '../../stores/identity/identityQueries.js';

export const citiesRoutes = (ctx: ApiContext, router: Router): void => {
  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/cities',
      summary: 'Cities served, Caracas first',
      tags: ['cities'],
      guards: [authenticate(ctx.auth)],
      // The names the reports' city filter shows (docs/decisions/0085).
      auditor: 'read',
      responses: {
        200: {
          description: 'The cities',
          schema: z.object({ cities: z.array(z.object({ id: z.number().int(), name: z.string() })) }),
        },
      },
    },
    async () => ({
      cities: await listCities(ctx.db),
    }),
  );
};
