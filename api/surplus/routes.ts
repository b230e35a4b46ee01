import type { Router } from 'express';
import { z } from 'zod';
import { notFound } from '../../domain/errors.js';
import {
  SURPLUS_DEFAULT_DURATION_MINUTES,
  SURPLUS_DESCRIPTION_MAX,
  SURPLUS_MAX_DURATION_MINUTES,
  SURPLUS_MAX_LITERS,
  SURPLUS_MAX_TOTAL_USD,
  SURPLUS_MIN_DURATION_MINUTES,
  SURPLUS_MIN_LITERS,
} from '../../domain/surplus/events.js';
import { CASH_USD } from '../../domain/pricing.js';
import { assertSelectableMethod, pricingSettingsOf } from '../../commands/order/create.js';
import { metadataOf } from '../../commands/origin.js';
import { cancelSurplus, listSurplus, reserveSurplus } from '../../commands/surplus/handlers.js';
import type { ApiContext } from '../apiContext.js';
import {
  activeListingsOfDriver,
  findSurplusListing,
  nearbyActiveListings,
} from '../../projections/surplus/surplusQueries.js';
import { authenticate, requireRole, type Actor } from '../auth.js';
import { loadBundle } from '../orders/orderReads.js';
import { idFrom } from '../orders/schemas.js';
import {
  blankIsAbsent,
  idParam,
  latitude,
  longitude,
  queryLatitude,
  queryLongitude,
  queryNumber,
  usdAmount,
} from '../schemas.js';
import { toClientView } from '../orders/views.js';
import { ClientOrder } from '../orders/viewSchemas.js';
import { defineRoute, PathId } from '../route.js';
import { nearbySurplusView, surplusView } from './views.js';
import { readBack } from '../readBack.js';

const SURPLUS_NEARBY_DEFAULT_RADIUS_KM = 15;

const ListBody = z.object({
  availableLiters: z.number().int().min(SURPLUS_MIN_LITERS).max(SURPLUS_MAX_LITERS),
  totalAmount: usdAmount(SURPLUS_MAX_TOTAL_USD),
  description: z.string().trim().max(SURPLUS_DESCRIPTION_MAX).nullable().optional(),
  latitude,
  longitude,
  address: z.string().trim().min(3).max(280),
  durationMinutes: z.number().int().min(SURPLUS_MIN_DURATION_MINUTES).max(SURPLUS_MAX_DURATION_MINUTES).optional(),
});

// A query string holds no null; reading one as missing also tells the OpenAPI generator (which probes the
// schema with null and undefined) that lat and lng are required numbers, not optional nullable ones.
const NearbyQuery = z.object({
  lat: z.preprocess(blankIsAbsent, queryLatitude),
  lng: z.preprocess(blankIsAbsent, queryLongitude),
  radiusKm: queryNumber(0, 100, { exclusiveMin: true }).default(SURPLUS_NEARBY_DEFAULT_RADIUS_KM),
  // Blank is the parameter left out (CASH_USD), so the document admits the empty string too.
  paymentMethod: z.preprocess(blankIsAbsent, z.string().max(40).default(CASH_USD)),
  paymentFormId: idParam.optional(),
});

const ReserveBody = z.object({
  latitude,
  longitude,
  address: z.string().trim().min(3).max(280),
  addressReference: z.string().max(255).nullable().optional(),
  paymentMethod: z.string().min(1).max(40).optional(),
  paymentFormId: z.number().int().positive().nullable().optional(),
});

/** Path ids are checked by idFrom (a malformed id is the unknown id's 404); the schema only documents them. */
export const SurplusListing = z
  .object({
    id: z.number().int(),
    driver_id: z.number().int(),
    city_id: z.number().int().nullable(),
    available_liters: z.number().int(),
    price_per_liter_cents: z.number().int(),
    total_price_cents: z.number().int(),
    price_per_liter_usd: z.number(),
    total_price_usd: z.number(),
    description: z.string().nullable(),
    latitude: z.number(),
    longitude: z.number(),
    address: z.string(),
    status: z.string(),
    sold_liters: z.number().int(),
    remaining_liters: z.number().int(),
    expires_at: z.string(),
    created_at: z.string(),
  })
  .openapi('SurplusListing');

export const NearbySurplusListing = SurplusListing.extend({
  distance_km: z.number(),
  payment_method: z.string(),
  base_price_cents: z.number().int(),
  base_price_usd: z.number(),
  client_pays_cents: z.number().int(),
  client_pays_usd: z.number(),
});

const CancelAnswer = { 200: { description: 'Cancelled', schema: z.object({ ok: z.literal(true) }) } };

const SurplusParams = z.object({ surplusId: PathId });
const surplusIdFrom = (params: Record<string, unknown>): number =>
  idFrom(params.surplusId, () => notFound('NotFound', 'Surplus listing not found.'));

export const surplusRoutes = (ctx: ApiContext, router: Router): void => {
  const driver = requireRole(ctx.auth, 'DRIVER');
  const client = requireRole(ctx.auth, 'CLIENT');
  const anyone = [authenticate(ctx.auth)];
  const tags = ['surplus'];

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/surplus',
      summary: 'Publish a surplus listing (not while holding an active order)',
      tags,
      guards: driver,
      body: ListBody,
      responses: { 201: { description: 'The listing', schema: z.object({ listing: SurplusListing }) } },
      errors: {
        403: ['Forbidden'],
        409: { ids: ['Conflict'], description: 'Conflict: the driver has an active order' },
      },
    },
    async ({ body, actor, req, res }) => {
      const { listingId, position } = await listSurplus(
        ctx,
        actor,
        {
          availableLiters: body.availableLiters,
          driverGrossCents: body.totalAmount,
          description: body.description || null,
          latitude: body.latitude,
          longitude: body.longitude,
          address: body.address,
          durationMinutes: body.durationMinutes ?? SURPLUS_DEFAULT_DURATION_MINUTES,
        },
        metadataOf(actor, req.id),
      );
      const row = await readBack(ctx, position, () => findSurplusListing(ctx.db, listingId));
      res.status(201);
      return { listing: surplusView(row) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/surplus/me',
      summary: 'The driver’s active listings (not expired, not cancelled, liters left)',
      tags,
      guards: driver,
      responses: { 200: { description: 'The listings', schema: z.object({ listings: z.array(SurplusListing) }) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ actor }) => ({
      listings: (await activeListingsOfDriver(ctx.db, actor.driverId ?? -1, ctx.clock.now())).map(surplusView),
    }),
  );

  for (const path of ['/surplus/nearby', '/surplus']) {
    defineRoute(
      router,
      ctx.openapi,
      {
        method: 'get',
        path,
        summary:
          path === '/surplus'
            ? 'Nearby active listings (alias of /surplus/nearby)'
            : 'Active listings within radiusKm, nearest first, priced for a payment method (at most 100)',
        tags,
        guards: anyone,
        query: NearbyQuery,
        responses: {
          200: { description: 'Nearest first', schema: z.object({ listings: z.array(NearbySurplusListing) }) },
        },
      },
      async ({ query }) => {
        await assertSelectableMethod(ctx, query.paymentMethod, query.paymentFormId);
        const settings = pricingSettingsOf(ctx);
        const found = await nearbyActiveListings(
          ctx.db,
          { latitude: query.lat, longitude: query.lng, radiusKm: query.radiusKm },
          ctx.clock.now(),
        );
        return { listings: found.map((f) => nearbySurplusView(f.row, f.distanceKm, query.paymentMethod, settings)) };
      },
    );
  }

  const cancel = async ({
    params,
    actor,
    req,
  }: {
    params: Record<string, unknown>;
    actor: Actor;
    req: { id?: unknown };
  }) => {
    const { position } = await cancelSurplus(ctx, actor, surplusIdFrom(params), metadataOf(actor, req.id));
    await ctx.settle(position);
    return { ok: true };
  };
  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'delete',
      path: '/surplus/:surplusId',
      summary: 'Cancel an active listing (owner only)',
      tags,
      guards: driver,
      params: SurplusParams,
      responses: CancelAnswer,
      errors: { 403: ['Forbidden'], 404: ['NotFound'], 409: ['Conflict'] },
    },
    cancel,
  );
  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/surplus/:surplusId/cancel',
      summary: 'Cancel an active listing (exact alias of DELETE)',
      tags,
      guards: driver,
      params: SurplusParams,
      responses: CancelAnswer,
      errors: { 403: ['Forbidden'], 404: ['NotFound'], 409: ['Conflict'] },
    },
    cancel,
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/surplus/:surplusId/reserve',
      summary: 'Reserve a whole listing: creates the order (CONFIRMED for cash, else WAITING_FOR_PAYMENT)',
      tags,
      guards: client,
      params: SurplusParams,
      body: ReserveBody,
      responses: {
        200: {
          description: 'The CLIENT view of the new order, with surplus_listing_id',
          schema: z.object({ order: ClientOrder }),
        },
      },
      errors: {
        403: ['Forbidden'],
        404: ['NotFound'],
        409: ['ActiveOrderExists', 'Conflict'],
        422: ['ExchangeRateUnavailable'],
      },
    },
    async ({ params, body, actor, req }) => {
      const { orderId, position } = await reserveSurplus(
        ctx,
        actor,
        {
          listingId: surplusIdFrom(params),
          latitude: body.latitude,
          longitude: body.longitude,
          address: body.address,
          addressReference: body.addressReference ?? null,
          paymentMethod: body.paymentMethod ?? CASH_USD,
          paymentFormId: body.paymentFormId ?? null,
        },
        metadataOf(actor, req.id),
      );
      return { order: toClientView(await readBack(ctx, position, () => loadBundle(ctx, orderId))) };
    },
  );
};
