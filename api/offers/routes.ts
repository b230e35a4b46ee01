import type { Router } from 'express';
import { z } from 'zod';
import { notFound } from '../../domain/errors.js';
import { acceptOfferById, acceptStandingCounterOffer, placeOffer, rejectOffer } from '../../commands/order/offers.js';
import { metadataOf } from '../../commands/origin.js';
import type { ApiContext } from '../apiContext.js';
import { findDriver } from '../../projections/drivers/driverQueries.js';
import { findOfferRow, findOrderRow, isBiddableNear } from '../../projections/orders/orderQueries.js';
import { BIDDING } from '../../domain/order/rules.js';
import { requireRole, type Actor } from '../auth.js';
import { ClientOrder, DriverOffer, DriverOrder } from '../orders/viewSchemas.js';
import { defineRoute } from '../route.js';
import { loadBundle } from '../orders/orderReads.js';
import { idFrom, OfferParams, OrderParams, orderIdFrom } from '../orders/schemas.js';
import { usdAmount } from '../schemas.js';
import { toClientView, toDriverOfferView, toDriverView } from '../orders/views.js';
import { readBack } from '../readBack.js';

const estimatedMinutes = z.number().int().min(1).max(240).optional();

/** POST /accept bids the published price: a driverGross sent there is ignored (the contract). */
const AcceptBody = z.object({ estimatedMinutes, force: z.boolean().optional() });
const CounterOfferBody = z.object({
  driverGross: usdAmount(100_000).optional(),
  estimatedMinutes,
  force: z.boolean().optional(),
});

const OVER_CAPACITY_WARNING = 'This order needs more water than your remaining liters: refill before delivering.';

const BidAnswer = {
  description: 'The offer (warning when the order needs more water than the driver has left)',
  schema: z.object({ offer: DriverOffer, warning: z.string().optional() }),
};
const ClientOrderAnswer = { description: 'The order', schema: z.object({ order: ClientOrder }) };

const offerNotFound = () => notFound('NotFound', 'Offer not found.');

export const offerRoutes = (ctx: ApiContext, router: Router): void => {
  const client = requireRole(ctx.auth, 'CLIENT');
  const driver = requireRole(ctx.auth, 'DRIVER');
  const tags = ['offers'];

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/orders/:orderId/offer',
      summary: 'The order as a bidding driver sees it (top level, with the client)',
      tags,
      params: OrderParams,
      guards: driver,
      responses: {
        200: {
          description: 'The order and its client',
          schema: DriverOrder.extend({
            client: z.object({ id: z.number().int(), name: z.string().nullable(), phone: z.string() }).nullable(),
          }),
        },
      },
      errors: { 403: ['Forbidden'], 404: ['NotFound', 'OrderNotFound'] },
    },
    async ({ params, actor }) => {
      // Order ids are sequential and this view holds the client's name, phone and address: a driver who
      // could not see the order in their feed (pending, offline, too far, the order closed) and is not its
      // assigned driver learns nothing, not even that it exists.
      const hidden = () => notFound('OrderNotFound', 'Order not found.');
      const b = await loadBundle(ctx, idFrom(params.orderId, hidden));
      if (!b) throw hidden();
      const now = ctx.clock.now();
      const me = await findDriver(ctx.db, actor.driverId ?? -1, now);
      const assigned = me !== null && b.row.driver_id === me.driverId;
      const inFeed =
        me?.status === 'ACTIVE' &&
        me.isOnline &&
        me.location !== null &&
        isBiddableNear(b.row, { ...me.location, radiusKm: ctx.config.NEARBY_DRIVER_RADIUS_KM, now });
      if (!assigned && !inFeed) throw hidden();
      return { ...toDriverView(b, me!.driverId, me!.location), client: b.client };
    },
  );

  const bid = async (
    actor: Actor,
    orderId: number,
    driverGrossCents: number | null,
    body: { estimatedMinutes?: number; force?: boolean },
    requestId: unknown,
  ) => {
    // A bid needs what the offer view needs: an order still open to bids is out of reach beyond the
    // driver's radius (or without a position), and answers as an unknown order (404 OrderNotFound).
    const row = await findOrderRow(ctx.db, orderId);
    let me: Awaited<ReturnType<typeof findDriver>> | undefined;
    if (row && BIDDING.includes(row.status)) {
      const now = ctx.clock.now();
      me = await findDriver(ctx.db, actor.driverId ?? -1, now);
      const near = me?.location
        ? isBiddableNear(row, { ...me.location, radiusKm: ctx.config.NEARBY_DRIVER_RADIUS_KM, now })
        : false;
      if (!near) throw notFound('OrderNotFound', 'Order not found.');
    }
    const { offerId, position } = await placeOffer(
      ctx,
      actor,
      {
        orderId,
        driverGrossCents,
        estimatedMinutes: body.estimatedMinutes ?? null,
        force: body.force ?? false,
        driver: me,
      },
      metadataOf(actor, requestId),
    );
    const offer = await readBack(ctx, position, () => findOfferRow(ctx.db, offerId));
    return { offer: toDriverOfferView(offer), ...(offer.over_capacity ? { warning: OVER_CAPACITY_WARNING } : {}) };
  };

  for (const path of ['/orders/:orderId/accept', '/orders/:orderId/driver-accept']) {
    defineRoute(
      router,
      ctx.openapi,
      {
        method: 'post',
        path,
        summary: 'Bid the published price (the client confirms the winner)',
        tags,
        params: OrderParams,
        guards: driver,
        body: AcceptBody,
        responses: { 201: BidAnswer },
        errors: { 403: ['Forbidden'], 404: ['OrderNotFound'], 409: ['Conflict', 'InsufficientLiters'] },
      },
      async ({ params, body, actor, req, res }) => {
        const out = await bid(actor, orderIdFrom(params), null, body, req.id);
        res.status(201);
        return out;
      },
    );
  }

  for (const path of ['/orders/:orderId/counter-offer', '/orders/:orderId/offers']) {
    defineRoute(
      router,
      ctx.openapi,
      {
        method: 'post',
        path,
        summary: 'Bid a custom price (driverGross: what the driver keeps)',
        tags,
        params: OrderParams,
        guards: driver,
        body: CounterOfferBody,
        responses: { 201: BidAnswer },
        errors: { 403: ['Forbidden'], 404: ['OrderNotFound'], 409: ['Conflict', 'InsufficientLiters'] },
      },
      async ({ params, body, actor, req, res }) => {
        const out = await bid(actor, orderIdFrom(params), body.driverGross ?? null, body, req.id);
        res.status(201);
        return out;
      },
    );
  }

  const settledClientView = async (position: number, orderId: number) => ({
    order: toClientView(await readBack(ctx, position, () => loadBundle(ctx, orderId))),
  });

  for (const path of ['/orders/offers/:offerId/accept', '/counter-offers/:offerId/accept']) {
    defineRoute(
      router,
      ctx.openapi,
      {
        method: 'post',
        path,
        summary: 'Accept an offer: the order is confirmed to that driver',
        tags,
        params: OfferParams,
        guards: client,
        responses: { 200: ClientOrderAnswer },
        errors: { 403: ['Forbidden'], 404: ['NotFound', 'OrderNotFound'], 409: ['Conflict', 'InsufficientLiters'] },
      },
      async ({ params, actor, req }) => {
        const offerId = idFrom(params.offerId, offerNotFound);
        const offer = await findOfferRow(ctx.db, offerId);
        if (!offer) throw offerNotFound();
        const { orderId, position } = await acceptOfferById(
          ctx,
          actor,
          offer.order_id,
          offerId,
          metadataOf(actor, req.id),
        );
        return settledClientView(position, orderId);
      },
    );
  }

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/orders/:orderId/accept-counter',
      summary: 'Accept the standing counter-offer',
      tags,
      params: OrderParams,
      guards: client,
      responses: { 200: ClientOrderAnswer },
      errors: { 403: ['Forbidden'], 404: ['NotFound', 'OrderNotFound'], 409: ['Conflict', 'InsufficientLiters'] },
    },
    async ({ params, actor, req }) => {
      const { orderId, position } = await acceptStandingCounterOffer(
        ctx,
        actor,
        orderIdFrom(params),
        metadataOf(actor, req.id),
      );
      return settledClientView(position, orderId);
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/counter-offers/:offerId/reject',
      summary: 'Reject an offer',
      tags,
      params: OfferParams,
      guards: client,
      responses: { 200: { description: 'Rejected', schema: z.object({ ok: z.literal(true) }) } },
      errors: { 403: ['Forbidden'], 404: ['NotFound', 'OrderNotFound'], 409: ['Conflict'] },
    },
    async ({ params, actor, req }) => {
      const offerId = idFrom(params.offerId, offerNotFound);
      const offer = await findOfferRow(ctx.db, offerId);
      if (!offer) throw offerNotFound();
      const { position } = await rejectOffer(ctx, actor, offer.order_id, offerId, metadataOf(actor, req.id));
      await ctx.settle(position);
      return { ok: true };
    },
  );
};
