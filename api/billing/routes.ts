import type { Router } from 'express';
import { announceReferenceChange } from '../../commands/referenceCache.js';
import { z } from 'zod';
import { notFound, validationError } from '../../domain/errors.js';
import type { ApiContext } from '../apiContext.js';
import {
  createBillingProfile,
  deleteBillingProfile,
  ENTITY_TYPES,
  listBillingProfiles,
  updateBillingProfile,
  type BillingProfile,
} from '../../stores/billing/billingProfiles.js';
import { requireRole } from '../auth.js';
import { defineRoute } from '../route.js';
import { queryInteger } from '../schemas.js';

/** Venezuelan RIF prefixes: V national, E foreign resident, J company, G government, C communal council, P passport. */
const EntityType = z
  .string()
  .trim()
  .toUpperCase()
  .pipe(z.enum(ENTITY_TYPES))
  .openapi({
    type: 'string',
    enum: [...ENTITY_TYPES],
    description: 'RIF prefix: V, E, J, G, C or P (passport); lower case accepted',
  });
/** Dots, dashes and spaces are how people write a cédula or RIF (V-12.345.678); they are not stored. */
const IdNumber = z
  .string()
  .transform((s) => s.replace(/[\s.-]/g, '').toUpperCase())
  .pipe(z.string().regex(/^[A-Z0-9]{5,15}$/, 'must be 5 to 15 letters or digits'))
  .openapi({
    type: 'string',
    // 5 to 15 letters or digits once dots, dashes and spaces are dropped (the type's own rule is the 422 of withDocument).
    pattern: '^[\\s.-]*([A-Za-z0-9][\\s.-]*){5,15}$',
    description:
      'cédula or RIF number, 5 to 10 digits (letters allowed for P); separators and the type prefix are dropped',
  });

/**
 * The document is checked as a pair: a number written with its prefix (V-12.345.678) loses the prefix, and
 * every type but P (passport) is 5 to 10 digits.
 */
const withDocument = <T extends { entityType?: string; idNumber?: string }>(b: T, ctx: z.RefinementCtx): T => {
  if (b.entityType === undefined || b.idNumber === undefined || b.entityType === 'P') return b;
  const idNumber = b.idNumber.startsWith(b.entityType) ? b.idNumber.slice(1) : b.idNumber;
  if (!/^\d{5,10}$/.test(idNumber))
    ctx.addIssue({
      code: 'custom',
      path: ['idNumber'],
      message: 'must be 5 to 10 digits for this entity type (letters only for P)',
    });
  return { ...b, idNumber };
};

const shape = {
  entityType: EntityType,
  idNumber: IdNumber,
  name: z.string().trim().min(2).max(150),
  address: z.string().trim().min(3).max(280),
  phone: z.string().regex(/^\+\d{10,15}$/, 'must be a plus sign then 10 to 15 digits'),
  isDefault: z.boolean(),
};

/**
 * withDocument's rule for a generated client: for every type but P the number is 5 to 10 digits, after an
 * optional prefix of its own type letter.
 */
const documentRule = {
  allOf: ENTITY_TYPES.filter((t) => t !== 'P').map((t) => ({
    if: { properties: { entityType: { const: t } }, required: ['entityType'] },
    then: { properties: { idNumber: { pattern: `^[\\s.-]*([${t}${t.toLowerCase()}][\\s.-]*)?(\\d[\\s.-]*){5,10}$` } } },
  })),
};

const CreateProfile = z
  .object({ ...shape, isDefault: shape.isDefault.default(false) })
  .openapi(documentRule as never)
  .transform(withDocument);
const PatchProfile = z
  .object(shape)
  .partial()
  .openapi({ ...documentRule, dependentRequired: { entityType: ['idNumber'], idNumber: ['entityType'] } } as never)
  .transform((b, ctx) => {
    // The document is one value: its type and number change together, so the pair can be checked.
    if ((b.entityType === undefined) !== (b.idNumber === undefined)) {
      const missing = b.entityType === undefined ? 'entityType' : 'idNumber';
      ctx.addIssue({ code: 'custom', path: [missing], message: 'entityType and idNumber change together' });
    }
    return withDocument(b, ctx);
  });

const ProfileParams = z.object({ id: queryInteger(1, Number.MAX_SAFE_INTEGER) });

const ProfileView = z
  .object({
    id: z.number().int(),
    entity_type: z.enum(ENTITY_TYPES),
    id_number: z.string(),
    name: z.string(),
    address: z.string(),
    phone: z.string(),
    is_default: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('BillingProfile');

const toView = (p: BillingProfile): z.infer<typeof ProfileView> => ({
  id: p.id,
  entity_type: p.entityType,
  id_number: p.idNumber,
  name: p.name,
  address: p.address,
  phone: p.phone,
  is_default: p.isDefault,
  created_at: p.createdAt.toISOString(),
  updated_at: p.updatedAt.toISOString(),
});

const unknownProfile = () => notFound('NotFound', 'You have no billing profile with this id.');

export const billingProfileRoutes = (ctx: ApiContext, router: Router): void => {
  const client = requireRole(ctx.auth, 'CLIENT');
  const tags = ['billing-profiles'];

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/billing-profiles',
      summary: "The caller's billing profiles, the default first",
      tags,
      guards: client,
      responses: { 200: { description: 'Profiles', schema: z.object({ profiles: z.array(ProfileView) }) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ actor }) => ({ profiles: (await listBillingProfiles(ctx.db, actor.id)).map(toView) }),
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/billing-profiles',
      summary: 'Add a billing profile; the first one, or one with isDefault true, becomes the default',
      tags,
      guards: client,
      body: CreateProfile,
      responses: { 201: { description: 'Created', schema: z.object({ profile: ProfileView }) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ actor, body, res }) => {
      const profile = await createBillingProfile(ctx.db, actor.id, body, ctx.clock.now());
      await announceReferenceChange(ctx, { kind: 'billing', clientId: actor.id });
      res.status(201);
      return { profile: toView(profile) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'patch',
      path: '/billing-profiles/:id',
      summary: 'Change a billing profile; isDefault true moves the default flag to it',
      tags,
      guards: client,
      params: ProfileParams,
      body: PatchProfile,
      responses: { 200: { description: 'Updated', schema: z.object({ profile: ProfileView }) } },
      errors: { 403: ['Forbidden'], 404: ['NotFound'] },
    },
    async ({ actor, params, body }) => {
      const profile = await updateBillingProfile(ctx.db, actor.id, params.id, body, ctx.clock.now());
      await announceReferenceChange(ctx, { kind: 'billing', clientId: actor.id });
      if (profile === 'keep_default')
        throw validationError({ isDefault: ['make another profile the default instead'] });
      if (!profile) throw unknownProfile();
      return { profile: toView(profile) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'delete',
      path: '/billing-profiles/:id',
      summary: 'Delete a billing profile; deleting the default makes the oldest remaining one the default',
      tags,
      guards: client,
      params: ProfileParams,
      responses: { 204: { description: 'Deleted', schema: null } },
      errors: { 403: ['Forbidden'], 404: ['NotFound'] },
    },
    async ({ actor, params }) => {
      const deleted = await deleteBillingProfile(ctx.db, actor.id, params.id);
      await announceReferenceChange(ctx, { kind: 'billing', clientId: actor.id });
      if (!deleted) throw unknownProfile();
    },
  );
};
