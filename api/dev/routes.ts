import { z } from 'zod';
import { notFound } from '../../domain/errors.js';
import type { AppContext } from '../../infra/context.js';
import type { Router } from 'express';
import { defineRoute } from '../route.js';

const OutboxQuery = z.object({ to: z.string().min(1).max(200) });

/** GET /dev/outbox?to= — what the simulators sent to a phone, email or user id; 404 in production. */
export const devRoutes = (ctx: AppContext, router: Router): void => {
  defineRoute(
    router,
    ctx.openapi,
    { method: 'get', path: '/dev/outbox', summary: 'Messages the SMS, mail and push simulators sent (non-production)', tags: ['dev'],
      auth: false,
      query: OutboxQuery,
      responses: {
        200: {
          description: 'Newest last',
          schema: z.object({
            messages: z.array(
              z.object({ channel: z.string(), to: z.string(), subject: z.string().nullable(), body: z.string(), data: z.record(z.string(), z.unknown()), created_at: z.string() }),
            ),
          }),
        },
      },
      errors: [404],
    },
    async ({ query }) => {
      if (ctx.config.APP_ENV === 'production') throw notFound('RouteNotFound', 'No route matches this method and path.');
      return { messages: await ctx.outbox.list(query.to) };
    },
  );
};
