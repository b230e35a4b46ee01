import type { Router } from 'express';
import { z } from 'zod';
import { metadataOf } from '../../../commands/origin.js';
import { announceReferenceChange } from '../../../commands/referenceCache.js';
import { createPromotion, deletePromotion, updatePromotion } from '../../../commands/promotions/campaigns.js';
import { CREDIT_BUCKETS } from '../../../domain/credit/events.js';
import { promotionNotFound } from '../../../domain/promotion/campaign.js';
import type { PromotionTerms } from '../../../domain/promotion/events.js';
import { centsToUsd } from '../../../domain/money.js';
import { AUDIENCES, isRunning, MILESTONE_BASES } from '../../../domain/promotion/promotion.js';
import type { ApiContext } from '../../apiContext.js';
import {
  grantsOf,
  listPromotions,
  promotionById,
  toCampaign,
  type GrantWithUser,
} from '../../../projections/promotions/promotionQueries.js';
import type { PromotionRow } from '../../../projections/promotions/promotionViews.js';
import { requireRole } from '../../auth.js';
import { idFrom, limit } from '../../orders/schemas.js';
import { cityId, cityIdParam, dayOrInstant, usdAmount } from '../../schemas.js';
import { rule } from '../../crossFieldRules.js';
import { defineRoute, PathId } from '../../route.js';
import { readBack } from '../../readBack.js';
import { decodeCursor, encodeCursor, isIdKey, pageSchema } from '../../cursor.js';

/** A date (midnight UTC) or an ISO 8601 date-time with its offset. */
const instant = dayOrInstant.transform((s) => new Date(s.length === 10 ? `${s}T00:00:00Z` : s));

/**
 * The read model's integer column bounds the grant count (as cityId bounds the city): a bigger one would be
 * accepted into a campaign's event and then stop the projector that cannot store it.
 */
const INTEGER_MAX = 2_147_483_647;

const fields = {
  name: z.string().trim().min(1).max(120),
  description: z.string().max(255).nullable(),
  audience: z.enum(AUDIENCES),
  credit_scope: z.enum(CREDIT_BUCKETS).nullable(),
  milestone_orders: z.number().int().min(1).max(1000),
  milestone_basis: z.enum(MILESTONE_BASES),
  amount_usd: usdAmount(10_000),
  city_id: cityId.nullable(),
  starts_at: instant.nullable(),
  ends_at: instant.nullable().openapi({ description: 'After starts_at (the one sent, else the stored one).' }),
  max_grants: z.number().int().min(1).max(INTEGER_MAX).nullable(),
  active: z.boolean(),
};

/** The campaign's window, a rule between fields (domain/promotion/promotion.ts). */
const ENDS_AFTER_STARTS = rule('ends_at is after starts_at (the one sent, else the stored one).', {
  ends_at: ['must be after starts_at'],
});

const CreateBody = z
  .object({
    ...fields,
    description: fields.description.default(null),
    // Required for CLIENT, prohibited for DRIVER: checked with the audience (combinationErrors), and
    // documented below (if/then).
    credit_scope: fields.credit_scope.default(null),
    milestone_basis: fields.milestone_basis.default('LIFETIME'),
    city_id: fields.city_id.default(null),
    starts_at: fields.starts_at.default(null),
    ends_at: fields.ends_at.default(null),
    max_grants: fields.max_grants.default(null),
    active: fields.active.default(true),
  })
  .openapi({
    if: { properties: { audience: { const: 'CLIENT' } }, required: ['audience'] },
    then: { required: ['credit_scope'], properties: { credit_scope: { type: 'string', enum: [...CREDIT_BUCKETS] } } },
    else: { properties: { credit_scope: { type: 'null' } } },
  } as never);

const UpdateBody = z.object(fields).partial();

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const ListQuery = z.object({
  audience: z.enum(AUDIENCES).optional(),
  credit_scope: z.enum(CREDIT_BUCKETS).optional(),
  active: bool.optional(),
  city_id: cityIdParam.optional(),
});

const GrantsQuery = z.object({ limit: limit(25), cursor: z.string().max(100).optional() });
const PromotionParams = z.object({ promotionId: PathId });

export const toPromotion = (r: PromotionRow, now: Date): z.infer<typeof Promotion> => ({
  id: r.id,
  name: r.name,
  description: r.description,
  audience: r.audience,
  credit_scope: r.credit_scope,
  milestone_orders: r.milestone_orders,
  milestone_basis: r.milestone_basis,
  amount_usd: centsToUsd(r.amount_cents),
  city_id: r.city_id,
  starts_at: r.starts_at?.toISOString() ?? null,
  ends_at: r.ends_at?.toISOString() ?? null,
  max_grants: r.max_grants,
  grants_count: r.grants_count,
  granted_amount_usd: centsToUsd(r.granted_amount_cents),
  active: r.active,
  is_running: isRunning(toCampaign(r), now),
  created_at: r.created_at.toISOString(),
});

const Promotion = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    audience: z.enum(AUDIENCES),
    credit_scope: z.enum(CREDIT_BUCKETS).nullable(),
    milestone_orders: z.number().int(),
    milestone_basis: z.enum(MILESTONE_BASES),
    amount_usd: z.number(),
    city_id: z.number().int().nullable(),
    starts_at: z.string().nullable(),
    ends_at: z.string().nullable(),
    max_grants: z.number().int().nullable(),
    grants_count: z.number().int(),
    granted_amount_usd: z.number(),
    active: z.boolean(),
    is_running: z.boolean(),
    created_at: z.string(),
  })
  .openapi('Promotion');
const PromotionAnswer = z.object({ promotion: Promotion });
const Grant = z.object({
  id: z.number().int(),
  user: z.object({ id: z.number().int(), name: z.string().nullable(), phone: z.string() }),
  order_id: z.number().int().nullable(),
  audience: z.enum(AUDIENCES),
  credit_scope: z.enum(CREDIT_BUCKETS).nullable(),
  amount_usd: z.number(),
  created_at: z.string(),
});
const NOT_FOUND = ['PromotionNotFound'] as const;

const toGrant = (g: GrantWithUser): z.infer<typeof Grant> => ({
  id: g.id,
  user: { id: g.user_id, name: g.user_name, phone: g.user_phone },
  order_id: g.order_id,
  audience: g.audience,
  credit_scope: g.credit_scope,
  amount_usd: centsToUsd(g.amount_cents),
  created_at: g.created_at.toISOString(),
});

type Body = z.infer<typeof UpdateBody>;

/** The sent fields as the campaign's terms (amount_usd arrives as cents: usdAmount); absent ones stay absent. */
const termsOf = (b: Body): Partial<PromotionTerms> => {
  const t: Partial<PromotionTerms> = {};
  if (b.name !== undefined) t.name = b.name;
  if (b.description !== undefined) t.description = b.description;
  if (b.audience !== undefined) t.audience = b.audience;
  if (b.credit_scope !== undefined) t.creditScope = b.credit_scope;
  if (b.milestone_orders !== undefined) t.milestoneOrders = b.milestone_orders;
  if (b.milestone_basis !== undefined) t.milestoneBasis = b.milestone_basis;
  if (b.amount_usd !== undefined) t.amountCents = b.amount_usd;
  if (b.city_id !== undefined) t.cityId = b.city_id;
  if (b.starts_at !== undefined) t.startsAt = b.starts_at?.toISOString() ?? null;
  if (b.ends_at !== undefined) t.endsAt = b.ends_at?.toISOString() ?? null;
  if (b.max_grants !== undefined) t.maxGrants = b.max_grants;
  if (b.active !== undefined) t.active = b.active;
  return t;
};

/** Milestone promotion campaigns, super admins only. */
export const adminPromotionRoutes = (ctx: ApiContext, router: Router): void => {
  const superAdmin = requireRole(ctx.auth, 'SUPER_ADMIN');
  const tags = ['admin-promotions'];
  const promotionId = (raw: unknown) => idFrom(raw, promotionNotFound);

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/promotions',
      summary: 'List promotion campaigns, newest first',
      tags,
      guards: superAdmin,
      query: ListQuery,
      responses: { 200: { description: 'Newest first', schema: z.object({ items: z.array(Promotion) }) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ query }) => {
      const rows = await listPromotions(ctx.db, {
        audience: query.audience,
        creditScope: query.credit_scope,
        active: query.active,
        cityId: query.city_id,
      });
      const now = ctx.clock.now();
      return { items: rows.map((r) => toPromotion(r, now)) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/promotions',
      summary: 'Create a promotion campaign',
      tags,
      guards: superAdmin,
      body: CreateBody,
      rules: ENDS_AFTER_STARTS,
      responses: { 201: { description: 'Created', schema: PromotionAnswer } },
      errors: { 403: ['Forbidden'], 409: ['Conflict'] },
    },
    async ({ body, res, actor, req }) => {
      // The create body's defaults fill every term.
      const { promotionId, position } = await createPromotion(
        ctx,
        termsOf(body) as PromotionTerms,
        metadataOf(actor, req.id),
      );
      const row = await readBack(ctx, position, () => promotionById(ctx.db, promotionId));
      await announceReferenceChange(ctx, { kind: 'promotions' });
      res.status(201);
      return { promotion: toPromotion(row, ctx.clock.now()) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/promotions/:promotionId',
      summary: 'A promotion campaign',
      tags,
      guards: superAdmin,
      params: PromotionParams,
      responses: { 200: { description: 'The campaign', schema: PromotionAnswer } },
      errors: { 403: ['Forbidden'], 404: NOT_FOUND },
    },
    async ({ params }) => {
      const row = await promotionById(ctx.db, promotionId(params.promotionId));
      if (!row) throw promotionNotFound();
      return { promotion: toPromotion(row, ctx.clock.now()) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'patch',
      path: '/admin/promotions/:promotionId',
      summary: 'Merge-update a promotion campaign',
      tags,
      guards: superAdmin,
      params: PromotionParams,
      body: UpdateBody,
      rules: ENDS_AFTER_STARTS,
      responses: { 200: { description: 'The campaign', schema: PromotionAnswer } },
      errors: { 403: ['Forbidden'], 404: NOT_FOUND, 409: ['Conflict', 'PromotionAlreadyGranted'] },
    },
    async ({ params, body, req, actor }) => {
      const id = promotionId(params.promotionId);
      const sent = Object.keys(req.body ?? {}).filter((k) => k in fields);
      const position = await updatePromotion(ctx, id, termsOf(body), sent, metadataOf(actor, req.id));
      const row = await readBack(ctx, position, () => promotionById(ctx.db, id));
      await announceReferenceChange(ctx, { kind: 'promotions' });
      return { promotion: toPromotion(row, ctx.clock.now()) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'delete',
      path: '/admin/promotions/:promotionId',
      summary: 'Delete a promotion campaign without grants',
      tags,
      guards: superAdmin,
      params: PromotionParams,
      responses: { 200: { description: 'Deleted', schema: z.object({ deleted: z.literal(true) }) } },
      errors: { 403: ['Forbidden'], 404: NOT_FOUND, 409: ['Conflict', 'PromotionHasGrants'] },
    },
    async ({ params, actor, req }) => {
      await ctx.settle(await deletePromotion(ctx, promotionId(params.promotionId), metadataOf(actor, req.id)));
      await announceReferenceChange(ctx, { kind: 'promotions' });
      return { deleted: true };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/promotions/:promotionId/grants',
      summary: 'Recipients of a campaign (cursor, newest first)',
      tags,
      guards: superAdmin,
      params: PromotionParams,
      query: GrantsQuery,
      responses: { 200: { description: 'One page', schema: pageSchema(Grant) } },
      errors: { 403: ['Forbidden'], 404: NOT_FOUND },
    },
    async ({ params, query }) => {
      const id = promotionId(params.promotionId);
      if (!(await promotionById(ctx.db, id))) throw promotionNotFound();
      const beforeId = decodeCursor(query.cursor, isIdKey)?.[0];
      const { rows, hasMore } = await grantsOf(ctx.db, id, { limit: query.limit, beforeId });
      const last = rows.at(-1);
      return {
        items: rows.map(toGrant),
        next_cursor: hasMore && last ? encodeCursor([last.id]) : null,
        has_more: hasMore,
      };
    },
  );
};
