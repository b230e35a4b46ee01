import type { Router } from 'express';
import { z } from 'zod';
import { orNull } from '../openapi.js';
import { notFound } from '../../domain/errors.js';
import { RATING_LIMITS } from '../../domain/rating/events.js';
import { metadataOf } from '../../commands/origin.js';
import { rateDriver, type RateDriverInput } from '../../commands/rating/handlers.js';
import type { ApiContext } from '../apiContext.js';
import { findDriver } from '../../projections/drivers/driverQueries.js';
import { ratingOfOrder, ratingSummaryOfDriver } from '../../projections/ratings/ratingQueries.js';
import type { RatingRow } from '../../projections/ratings/ratingViews.js';
import { authenticate, requireRole, type Actor } from '../auth.js';
import { bundleForParty } from '../orders/orderReads.js';
import { OrderParams, orderIdFrom } from '../orders/schemas.js';
import { defineRoute, type ErrorAnswers } from '../route.js';
import { readBack } from '../readBack.js';

const { minScore, maxScore, maxTags, maxTagLength, maxCommentLength } = RATING_LIMITS;

const RatingFields = z.object({
  score: z.number().int().min(minScore).max(maxScore),
  tags: z.array(z.string().trim().min(1).max(maxTagLength)).max(maxTags).optional(),
  // A blank comment says nothing: it is stored as null.
  comment: z.string().trim().max(maxCommentLength).nullable().optional(),
});

const RatingBody = RatingFields.extend({ orderId: z.number().int().positive() });

/** A rating, with the contract's snake_case names. */
export const ratingView = (r: RatingRow): z.infer<typeof Rating> => ({
  id: r.id,
  order_id: r.order_id,
  from_user_id: r.from_user_id,
  to_driver_id: r.to_driver_id,
  score: r.score,
  comment: r.comment,
  tags: r.tags,
  created_at: new Date(r.created_at).toISOString(),
  updated_at: new Date(r.updated_at).toISOString(),
});

const Rating = z
  .object({
    id: z.number().int(),
    order_id: z.number().int(),
    from_user_id: z.number().int(),
    to_driver_id: z.number().int(),
    score: z.number().int(),
    comment: z.string().nullable(),
    tags: z.array(z.string()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Rating');

const RATED = {
  description: 'The rating and the driver’s new average',
  schema: z.object({ rating: Rating, driver: z.object({ avgRating: z.number(), totalRatings: z.number().int() }) }),
};
const RATE_ERRORS: ErrorAnswers = {
  403: ['Forbidden'],
  404: ['OrderNotFound'],
  409: ['AlreadyRated', 'Conflict', 'NoDriverAssigned', 'OrderNotDelivered'],
};

export const ratingRoutes = (ctx: ApiContext, router: Router): void => {
  const anyone = [authenticate(ctx.auth)];
  const tags = ['ratings'];

  const rate = async (actor: Actor, input: RateDriverInput, requestId: unknown) => {
    const { position, rating } = await rateDriver(ctx, actor, input, metadataOf(actor, requestId));
    const { row, driver } = await readBack(ctx, position, async () => {
      const row = await ratingOfOrder(ctx.db, input.orderId);
      const driver = await findDriver(ctx.db, rating.driverId, ctx.clock.now());
      return row && driver ? { row, driver } : null;
    });
    return { rating: ratingView(row), driver: { avgRating: driver.avgRating, totalRatings: driver.ratingsCount } };
  };

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/ratings',
      summary: 'Rate the driver of a delivered order (its customer, once)',
      tags,
      guards: anyone,
      body: RatingBody,
      responses: { 201: RATED },
      errors: RATE_ERRORS,
    },
    async ({ body, actor, req, res }) => {
      const out = await rate(
        actor,
        { orderId: body.orderId, score: body.score, tags: body.tags ?? [], comment: body.comment || null },
        req.id,
      );
      res.status(201);
      return out;
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/orders/:orderId/rating',
      summary: 'Rate the driver of a delivered order (alias of POST /ratings)',
      tags,
      guards: anyone,
      params: OrderParams,
      body: RatingFields,
      responses: { 201: RATED },
      errors: RATE_ERRORS,
    },
    async ({ params, body, actor, req, res }) => {
      const out = await rate(
        actor,
        { orderId: orderIdFrom(params), score: body.score, tags: body.tags ?? [], comment: body.comment || null },
        req.id,
      );
      res.status(201);
      return out;
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/ratings/order/:orderId',
      summary: 'The caller’s rating of an order, or null',
      tags,
      guards: anyone,
      params: OrderParams,
      responses: { 200: { description: 'The rating or null', schema: z.object({ rating: orNull(Rating) }) } },
      errors: { 403: ['Forbidden'], 404: ['OrderNotFound'] },
    },
    async ({ params, actor }) => {
      const orderId = orderIdFrom(params);
      await bundleForParty(ctx, orderId, actor);
      const row = await ratingOfOrder(ctx.db, orderId);
      // "The caller's rating": only its author reads it here; the driver reads its ratings anonymized.
      return { rating: row && row.from_user_id === actor.id && actor.role === 'CLIENT' ? ratingView(row) : null };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/driver/rating',
      summary: 'The driver’s rating summary',
      tags,
      guards: requireRole(ctx.auth, 'DRIVER'),
      responses: {
        200: {
          description: 'Average, total, distribution by score and the latest commented ratings (anonymous)',
          schema: z.object({
            average: z.number(),
            total: z.number().int(),
            distribution: z.object({
              1: z.number().int(),
              2: z.number().int(),
              3: z.number().int(),
              4: z.number().int(),
              5: z.number().int(),
            }),
            recent: z.array(
              z.object({
                score: z.number().int(),
                comment: z.string().nullable(),
                tags: z.array(z.string()),
                created_at: z.string(),
              }),
            ),
          }),
        },
      },
      errors: { 403: ['Forbidden'], 404: ['DriverNotFound'] },
    },
    async ({ actor }) => {
      if (actor.driverId == null) throw notFound('DriverNotFound', 'You have no driver profile.');
      return ratingSummaryOfDriver(ctx.db, actor.driverId);
    },
  );
};
