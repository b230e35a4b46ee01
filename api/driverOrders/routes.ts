import type { Router } from 'express';
import { z } from 'zod';
import { orNull } from '../openapi.js';
import type { ApiContext } from '../apiContext.js';
import { findDriver } from '../../projections/drivers/driverQueries.js';
import { activeOrderOfDriver, biddableOrdersNear } from '../../projections/orders/orderQueries.js';
import { requireRole } from '../auth.js';
import { DriverOrder } from '../orders/viewSchemas.js';
import { defineRoute } from '../route.js';
import { loadBundles } from '../orders/orderReads.js';
import { limit } from '../orders/schemas.js';
import { toDriverView } from '../orders/views.js';

const FeedQuery = z.object({ limit: limit(50) });

/**
 * GET /driver/orders (docs/domain-rules.md): orders open for bids within NEARBY_DRIVER_RADIUS_KM of the driver's idle
 * position (none while offline or without a position), nearest first, and the driver's active order.
 */
export const driverOrderRoutes = (ctx: ApiContext, router: Router): void => {
  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/driver/orders',
      summary: 'Biddable orders near the driver, and the active order',
      tags: ['orders'],
      guards: requireRole(ctx.auth, 'DRIVER'),
      query: FeedQuery,
      responses: {
        200: {
          description: 'Nearest first',
          schema: z.object({ available: z.array(DriverOrder), active: orNull(DriverOrder) }),
        },
      },
      errors: { 403: ['Forbidden'] },
    },
    async ({ query, actor }) => {
      const driverId = actor.driverId ?? -1;
      const now = ctx.clock.now();
      const me = await findDriver(ctx.db, driverId, now);
      const near =
        me?.isOnline && me.status === 'ACTIVE' && me.location
          ? await biddableOrdersNear(ctx.db, {
              ...me.location,
              radiusKm: ctx.config.NEARBY_DRIVER_RADIUS_KM,
              now,
              limit: query.limit,
            })
          : [];
      const available = await loadBundles(
        ctx,
        near.map((n) => n.row),
      );
      const activeRow = await activeOrderOfDriver(ctx.db, driverId);
      const [active] = activeRow ? await loadBundles(ctx, [activeRow]) : [];
      return {
        available: available.map((b) => toDriverView(b, driverId, me?.location ?? null)),
        active: active ? toDriverView(active, driverId, me?.location ?? null) : null,
      };
    },
  );
};
