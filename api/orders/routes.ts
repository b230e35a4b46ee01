import { dateOrderRule } from '../crossFieldRules.js';
import type { Router } from 'express';
import { z } from 'zod';
import { orNull } from '../openapi.js';
import { cancellationReasons, isCancellationReason } from '../../domain/order/cancellationReasons.js';
import { ORDER_STATUSES } from '../../domain/order/events.js';
import { DELIVERABLE } from '../../domain/order/rules.js';
import { conflict, forbidden, notFound, validationError } from '../../domain/errors.js';
import { distanceKm, etaMinutes, TRACKING_SPEED_KMH } from '../../domain/geo.js';
import { PAYMENT_FORM } from '../../domain/pricing.js';
import { cancelOrder } from '../../commands/order/closing.js';
import { createOrder } from '../../commands/order/create.js';
import { changePaymentMethod } from '../../commands/order/payment.js';
import { deliver, markArrived, recordLocation, startTrip } from '../../commands/order/trip.js';
import { driverPositions } from '../../commands/driver/positions.js';
import { metadataOf } from '../../commands/origin.js';
import { POSITION_COOLDOWN } from '../drivers/routes.js';
import type { ApiContext } from '../apiContext.js';
import { findDriver } from '../../projections/drivers/driverQueries.js';
import { ratingForOrder } from '../../projections/ratings/ratingQueries.js';
import {
  activeOrderOfClient,
  orderHistoryOfClient,
  recentOrdersOfClient,
} from '../../projections/orders/orderQueries.js';
import { authenticate, requireRole, type Actor } from '../auth.js';
import { defineRoute } from '../route.js';
import { bundleForParty, loadBundle, loadBundles } from './orderReads.js';
import { idFrom, OrderParams, limit, orderIdFrom } from './schemas.js';
import { dateWindow, inDateOrder, latitude, longitude, requiredTogether, usdAmount } from '../schemas.js';
import { ClientOrder, DriverOrder, OrderForRole, OrderHistoryItem, OrderStatus, Receipt } from './viewSchemas.js';
import { toAdminView, toClientView, toDriverView, toHistoryItem, toReceipt, type OrderBundle } from './views.js';
import { readBack } from '../readBack.js';
import { afterTimeId, encodeCursor, pageSchema } from '../cursor.js';

const CreateOrderBody = z.object({
  latitude,
  longitude,
  address: z.string().trim().min(3).max(280),
  addressReference: z.string().max(255).nullable().optional(),
  litersRequested: z.number().int().min(1).max(50_000),
  basePrice: usdAmount(100_000),
  waterType: z.enum(['POTABLE', 'INDUSTRIAL']).optional(),
  paymentMethod: z.string().min(1).max(40).optional(),
  paymentFormId: z.number().int().positive().nullable().optional(),
  notes: z.string().max(500).nullable().optional(),
  accessInstructions: z.string().max(500).nullable().optional(),
  billingProfileId: z.number().int().positive().nullable().optional(),
});

const HistoryQuery = z
  .object({
    status: z.enum(ORDER_STATUSES).optional(),
    ...dateWindow,
    limit: limit(25),
    cursor: z.string().max(200).optional(),
  })
  .refine(...inDateOrder);

const FlatQuery = z.object({ limit: limit(20) });

const LocationBody = z.object({ latitude, longitude });

const ArrivedBody = requiredTogether(
  z.object({ latitude: latitude.optional(), longitude: longitude.optional() }),
  ['latitude', 'longitude'],
  'send latitude and longitude together',
);

const DeliverBody = z.object({
  actualLiters: z.number().int().min(1).max(50_000),
  deliveryPin: z.string().regex(/^\d{4}$/, 'must be exactly 4 digits'),
});

/** paymentFormId is "required when PAYMENT_FORM, ignored otherwise" (the contract): only checked for PAYMENT_FORM. */
const PaymentMethodBody = z
  .object({
    paymentMethod: z.string().min(1).max(40),
    // Any value is taken (it is ignored unless PAYMENT_FORM); the document says what a client should send.
    paymentFormId: z
      .unknown()
      .optional()
      .openapi({
        type: ['integer', 'null'],
        minimum: 1,
        description: 'The payment form; required when paymentMethod is PAYMENT_FORM, ignored otherwise',
      } as never),
  })
  .transform((b, c) => {
    if (b.paymentMethod !== PAYMENT_FORM) return { paymentMethod: b.paymentMethod, paymentFormId: null };
    const id = z.number().int().positive().nullable().optional().safeParse(b.paymentFormId);
    if (!id.success) c.addIssue({ code: 'custom', path: ['paymentFormId'], message: 'must be a positive integer' });
    return { paymentMethod: b.paymentMethod, paymentFormId: id.success ? id.data : null };
  });

const CancelBody = z.object({
  reason_code: z.string().max(60).nullable().optional(),
  reason: z.string().max(280).nullable().optional(),
});

/** The order as the caller's role sees it. */
export const viewFor = (b: OrderBundle, actor: Actor) => {
  if (actor.role === 'ADMIN') return toAdminView(b);
  if (actor.role === 'DRIVER') return toDriverView(b, actor.driverId ?? -1);
  return toClientView(b);
};

const orderOf = (schema: z.ZodType, description: string) => ({ description, schema: z.object({ order: schema }) });

export const orderRoutes = (ctx: ApiContext, router: Router): void => {
  const client = requireRole(ctx.auth, 'CLIENT');
  const driver = requireRole(ctx.auth, 'DRIVER');
  const anyone = [authenticate(ctx.auth)];
  const tags = ['orders'];
  const positions = driverPositions(ctx);

  /** Read-your-writes: wait for the position, then answer from the read model like the GETs. */
  const settledBundle = (position: number, orderId: number): Promise<OrderBundle> =>
    readBack(ctx, position, () => loadBundle(ctx, orderId));

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/orders',
      summary: 'Create an order (one active order per customer)',
      tags,
      guards: client,
      body: CreateOrderBody,
      responses: { 201: orderOf(ClientOrder, 'The new order') },
      errors: {
        403: ['Forbidden'],
        404: ['NotFound'],
        409: ['ActiveOrderExists', 'Conflict'],
        422: ['ExchangeRateUnavailable'],
      },
    },
    async ({ body, actor, req, res }) => {
      const { orderId, position } = await createOrder(
        ctx,
        {
          clientId: actor.id,
          latitude: body.latitude,
          longitude: body.longitude,
          address: body.address,
          addressReference: body.addressReference ?? null,
          litersRequested: body.litersRequested,
          waterPriceCents: body.basePrice,
          waterType: body.waterType ?? 'POTABLE',
          paymentMethod: body.paymentMethod ?? 'CASH_USD',
          paymentFormId: body.paymentFormId ?? null,
          notes: body.notes ?? null,
          accessInstructions: body.accessInstructions ?? null,
          billingProfileId: body.billingProfileId,
        },
        metadataOf(actor, req.id),
      );
      const b = await settledBundle(position, orderId);
      res.status(201);
      return { order: toClientView(b) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/orders',
      summary: 'Order history (cursor, newest first)',
      tags,
      guards: client,
      query: HistoryQuery,
      rules: dateOrderRule(),
      responses: { 200: { description: 'One page', schema: pageSchema(OrderHistoryItem) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ query, actor }) => {
      const { rows, hasMore } = await orderHistoryOfClient(ctx.db, actor.id, {
        status: query.status,
        dateFrom: query.date_from,
        dateTo: query.date_to,
        limit: query.limit,
        after: afterTimeId(query.cursor),
      });
      const bundles = await loadBundles(ctx, rows);
      const last = rows.at(-1);
      return {
        items: bundles.map(toHistoryItem),
        next_cursor: hasMore && last ? encodeCursor([last.created_at.toISOString(), last.id]) : null,
        has_more: hasMore,
      };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/orders/active',
      summary: 'The customer’s active order, or null',
      tags,
      guards: client,
      responses: { 200: orderOf(orNull(ClientOrder), 'The active order or null') },
      errors: { 403: ['Forbidden'] },
    },
    async ({ actor }) => {
      const row = await activeOrderOfClient(ctx.db, actor.id);
      return { order: row ? toClientView((await loadBundles(ctx, [row]))[0]) : null };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/orders/history',
      summary: 'Recent orders (flat list)',
      tags,
      guards: client,
      query: FlatQuery,
      responses: { 200: { description: 'Newest first', schema: z.object({ orders: z.array(ClientOrder) }) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ query, actor }) => ({
      orders: (await loadBundles(ctx, await recentOrdersOfClient(ctx.db, actor.id, query.limit))).map(toClientView),
    }),
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/orders/cancellation-reasons',
      summary: 'Cancellation reasons for the caller’s role',
      tags,
      guards: anyone,
      responses: {
        200: {
          description: 'The reasons',
          schema: z.object({ reasons: z.array(z.object({ code: z.string(), label: z.string() })) }),
        },
      },
    },
    async ({ actor }) => ({ reasons: cancellationReasons[actor.role].map((r) => ({ code: r.code, label: r.label })) }),
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/orders/:orderId/start',
      summary: 'Start the assigned trip',
      tags,
      params: OrderParams,
      guards: driver,
      responses: { 200: orderOf(DriverOrder, 'IN_PROGRESS') },
      errors: { 403: ['Forbidden'], 404: ['OrderNotFound'], 409: ['Conflict'] },
    },
    async ({ params, actor, req }) => {
      const orderId = orderIdFrom(params);
      const { position } = await startTrip(ctx, actor, orderId, metadataOf(actor, req.id));
      return { order: toDriverView(await settledBundle(position, orderId), actor.driverId!) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/orders/:orderId/location',
      summary: 'Push the live location during the trip',
      tags,
      params: OrderParams,
      guards: driver,
      body: LocationBody,
      responses: { 204: { description: 'Recorded', schema: null } },
      errors: { 403: ['Forbidden'], 404: ['OrderNotFound'], 409: ['Conflict', 'WrongStatus'], 429: POSITION_COOLDOWN },
    },
    async ({ params, body, actor, req }) => {
      const fix = { latitude: body.latitude, longitude: body.longitude };
      const { position } = await recordLocation(
        ctx,
        actor,
        { orderId: orderIdFrom(params), ...fix },
        positions,
        metadataOf(actor, req.id),
      );
      await ctx.settle(position);
      return undefined;
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/orders/:orderId/arrived',
      summary: 'Mark arrival (within 500 m; idempotent)',
      tags,
      params: OrderParams,
      guards: driver,
      body: ArrivedBody,
      responses: {
        200: {
          description: 'ARRIVED',
          schema: z.object({
            ok: z.literal(true),
            status: z.literal('ARRIVED'),
            arrivedAt: z.string().nullable(),
            distanceMeters: z.number().nullable(),
          }),
        },
      },
      errors: {
        403: ['Forbidden'],
        404: ['OrderNotFound'],
        409: ['Conflict', 'NoLocation', 'TooFarFromDestination', 'WrongStatus'],
        429: POSITION_COOLDOWN,
      },
    },
    async ({ params, body, actor, req }) => {
      const { position, order } = await markArrived(
        ctx,
        actor,
        { orderId: orderIdFrom(params), ...body },
        positions,
        metadataOf(actor, req.id),
      );
      await ctx.settle(position);
      return { ok: true, status: 'ARRIVED', arrivedAt: order.arrivedAt, distanceMeters: order.arrivalDistanceMeters };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/orders/:orderId/tracking',
      summary: 'Driver position, distance and ETA (straight line, 25 km/h)',
      tags,
      params: OrderParams,
      guards: client,
      responses: {
        200: {
          description: 'Where the driver is',
          schema: z.object({
            order: z.object({
              id: z.number().int(),
              status: OrderStatus,
              latitude: z.number(),
              longitude: z.number(),
              address: z.string(),
              expires_at: z.string(),
            }),
            driver: z
              .object({
                id: z.number().int(),
                name: z.string().nullable(),
                phone: z.string().nullable(),
                currentLat: z.number(),
                currentLng: z.number(),
                lastLocationAt: z.string(),
              })
              .nullable(),
            distanceKm: z.number().nullable(),
            estimatedMinutes: z.number().int().nullable(),
            avgSpeedKmh: z.number(),
          }),
        },
      },
      errors: { 403: ['Forbidden'], 404: ['OrderNotFound'], 409: ['NoTracking'] },
    },
    async ({ params, actor }) => {
      const { bundle } = await bundleForParty(ctx, orderIdFrom(params), actor);
      const r = bundle.row;
      if (!DELIVERABLE.includes(r.status)) throw conflict('NoTracking', 'The order is not trackable now.');
      const d = r.driver_id === null ? null : await findDriver(ctx.db, r.driver_id, ctx.clock.now());
      const live = r.driver_location_at
        ? { latitude: r.driver_latitude!, longitude: r.driver_longitude!, at: r.driver_location_at }
        : null;
      const known = live && (!d?.location || live.at >= d.location.at) ? live : (d?.location ?? null);
      const km = known ? distanceKm(known, r) : null;
      return {
        order: {
          id: r.id,
          status: r.status,
          latitude: r.latitude,
          longitude: r.longitude,
          address: r.address,
          expires_at: r.expires_at.toISOString(),
        },
        driver:
          d && known
            ? {
                id: d.driverId,
                name: d.name,
                phone: d.phone,
                currentLat: known.latitude,
                currentLng: known.longitude,
                lastLocationAt: known.at.toISOString(),
              }
            : null,
        distanceKm: km === null ? null : Math.round(km * 1000) / 1000,
        estimatedMinutes: km === null ? null : etaMinutes(km),
        avgSpeedKmh: TRACKING_SPEED_KMH,
      };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/orders/:orderId/deliver',
      summary: 'Confirm delivery with the client’s PIN',
      tags,
      params: OrderParams,
      guards: driver,
      body: DeliverBody,
      responses: { 200: { description: 'Delivered', schema: z.object({ ok: z.literal(true) }) } },
      errors: {
        400: ['DeliveryError'],
        403: ['Forbidden'],
        404: ['OrderNotFound'],
        409: ['Conflict', 'DeliveryError'],
        429: ['Cooldown'],
      },
    },
    async ({ params, body, actor, req }) => {
      const { position } = await deliver(
        ctx,
        actor,
        { orderId: orderIdFrom(params), ...body },
        metadataOf(actor, req.id),
      );
      await ctx.settle(position);
      return { ok: true };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'patch',
      path: '/orders/:orderId/payment-method',
      summary: 'Change the payment method (re-applies credit)',
      tags,
      params: OrderParams,
      guards: client,
      body: PaymentMethodBody,
      responses: { 200: orderOf(ClientOrder, 'The order') },
      errors: { 403: ['Forbidden'], 404: ['OrderNotFound'], 409: ['Conflict', 'PaymentMethodLocked'] },
    },
    async ({ params, body, actor, req }) => {
      const orderId = orderIdFrom(params);
      const { position } = await changePaymentMethod(
        ctx,
        actor,
        { orderId, paymentMethod: body.paymentMethod, paymentFormId: body.paymentFormId },
        metadataOf(actor, req.id),
      );
      return { order: toClientView(await settledBundle(position, orderId)) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/orders/:orderId/cancel',
      summary: 'Cancel (customer, assigned driver or admin)',
      tags,
      params: OrderParams,
      guards: anyone,
      body: CancelBody,
      responses: { 200: orderOf(OrderForRole, 'CANCELLED, as the caller’s role sees it') },
      errors: { 403: ['CancelError'], 404: ['CancelError', 'OrderNotFound'], 409: ['CancelError', 'Conflict'] },
    },
    async ({ params, body, actor, req }) => {
      const orderId = idOrCancelError(params.orderId);
      const reasonCode = body.reason_code ?? null;
      if (reasonCode !== null && !isCancellationReason(actor.role, reasonCode))
        throw validationError({ reason_code: ['is not a cancellation reason for your role'] });
      const { position } = await cancelOrder(
        ctx,
        actor,
        { orderId, reasonCode, reason: body.reason ?? null },
        metadataOf(actor, req.id),
      );
      return { order: viewFor(await settledBundle(position, orderId), actor) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/orders/:orderId/receipt',
      summary: 'Accounting receipt of a delivered order',
      tags,
      params: OrderParams,
      guards: client,
      responses: { 200: { description: 'The receipt', schema: z.object({ receipt: Receipt }) } },
      errors: { 403: ['Forbidden'], 404: ['OrderNotFound'], 409: ['OrderNotDelivered'] },
    },
    async ({ params, actor }) => {
      const { bundle } = await bundleForParty(ctx, orderIdFrom(params), actor);
      if (bundle.row.status !== 'DELIVERED') throw conflict('OrderNotDelivered', 'The order has not been delivered.');
      return { receipt: toReceipt(bundle, await ratingForOrder(ctx.db, bundle.row.id)) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/orders/:orderId',
      summary: 'Order detail (owner, assigned driver or admin)',
      tags,
      params: OrderParams,
      guards: anyone,
      responses: { 200: orderOf(OrderForRole, 'The order as the caller’s role sees it') },
      errors: { 403: ['Forbidden'], 404: ['OrderNotFound'] },
    },
    async ({ params, actor }) => {
      const { bundle, party } = await bundleForParty(ctx, orderIdFrom(params), actor);
      if (party === 'BIDDER')
        throw forbidden(
          'Forbidden',
          'Only the assigned driver sees this order; use GET /orders/{orderId}/offer while bidding.',
        );
      return { order: viewFor(bundle, actor) };
    },
  );
};

const idOrCancelError = (raw: unknown): number => idFrom(raw, () => notFound('CancelError', 'Order not found.'));
