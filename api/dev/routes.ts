import { z } from 'zod';
import type { ApiContext } from '../apiContext.js';
import type { Router } from 'express';
import { defineRoute } from '../route.js';
import { directLoopbackOnly } from './directLoopback.js';

/**
 * Whom the simulators address: a phone (SMS), an e-mail address (mail) or a user id (push). Said as a pattern
 * so that the document tells which strings are addresses (the outside check finds no invalid string otherwise).
 */
const OutboxQuery = z.object({
  to: z
    .string()
    .max(200)
    .regex(/^(?:\+?[0-9]{1,20}|[^@\s]+@[^@\s]+)$/, 'Must be a phone, an e-mail address or a user id.'),
});

/**
 * GET /dev/outbox?to= — what the simulators sent to a phone, email or user id. Production neither routes
 * nor documents it: its path answers the 404 RouteNotFound of any unknown path.
 */
export const devRoutes = (ctx: ApiContext, router: Router): void => {
  if (ctx.config.APP_ENV === 'production') return;
  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/dev/outbox',
      summary: 'Messages the SMS, mail and push simulators sent (non-production)',
      tags: ['dev'],
      auth: false,
      guards: [directLoopbackOnly],
      query: OutboxQuery,
      responses: {
        200: {
          description: 'Newest last',
          schema: z.object({
            messages: z.array(
              z.object({
                channel: z.string(),
                to: z.string(),
                subject: z.string().nullable(),
                body: z.string(),
                data: z.record(z.string(), z.unknown()),
                created_at: z.string(),
              }),
            ),
          }),
        },
      },
      errors: {
        404: { ids: ['RouteNotFound'], description: 'RouteNotFound: not a direct request from the loopback interface' },
      },
    },
    async ({ query }) => ({ messages: await ctx.outbox.list(query.to) }),
  );
};
