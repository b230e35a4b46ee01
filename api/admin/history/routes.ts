import type { Router } from 'express';
import { z } from 'zod';
import { orderStream } from '../../../domain/order/events.js';
import type { ApiContext } from '../../apiContext.js';
import { requireRole } from '../../auth.js';
import { OrderParams, orderIdFrom } from '../../orders/schemas.js';
import { defineRoute } from '../../route.js';
import { auditorReads } from '../audit/accessRoutes.js';
import { notFound } from '../../../domain/errors.js';
import { withActorNames } from '../../../stores/identity/actorNames.js';
import { HistoryItem, toHistoryItem } from './eventHistory.js';
import { assertOrderInScope } from '../cityScope.js';

/** The order's events in order, with who did what under which request (the auditor's replay). */
export const orderHistoryRoutes = (ctx: ApiContext, router: Router) => {
  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/orders/:orderId/history',
      summary: "The order's full event history",
      tags: ['admin-history'],
      guards: requireRole(ctx.auth, 'ADMIN'),
      auditor: 'read',
      params: OrderParams,
      responses: {
        200: {
          description: 'Every event of the order',
          schema: z.object({ order_id: z.number(), events: z.array(HistoryItem) }),
        },
      },
      errors: { 403: ['Forbidden'], 404: ['OrderNotFound'] },
    },
    async ({ params, actor, req }) => {
      await auditorReads(ctx, actor, req, 'order_history');
      const orderId = orderIdFrom(params);
      await assertOrderInScope(ctx, actor, orderId);
      const events = await ctx.store.readStream(orderStream(orderId));
      if (events.length === 0) throw notFound('OrderNotFound', 'Order not found.');
      return { order_id: orderId, events: await withActorNames(ctx.db, events.map(toHistoryItem)) };
    },
  );
};
