import type { Router } from 'express';
import { z } from 'zod';
import { orNull } from '../openapi.js';
import { badRequest, notFound, unauthorized } from '../../domain/errors.js';
import {
  findUserById,
  findUserByPhone,
  issueAppToken,
  phoneAuth,
  type UserRow,
} from '../../commands/identity/phoneAuth.js';
import { driverCommands } from '../../commands/driver/handlers.js';
import { updateUserProfile } from '../../commands/identity/userProfile.js';
import type { ApiContext } from '../apiContext.js';
import { announceSessionChange } from '../../infra/identity/sessionChanges.js';
import { findDriverByUserId } from '../../projections/drivers/driverQueries.js';
import { requireRole, type Actor } from '../auth.js';
import { DriverView } from '../drivers/viewSchemas.js';
import { defineRoute } from '../route.js';
import { directLoopbackOnly } from '../dev/directLoopback.js';
import { metadataOf } from '../../commands/origin.js';
import { loginUserView, meView } from './views.js';
import { emailAddress } from '../schemas.js';

export const Phone = z.string().regex(/^\+\d{10,15}$/, 'A plus sign then 10 to 15 digits.');
const App = z.enum(['client', 'driver']);

const OtpRequestBody = z.object({ phone: Phone });
const OtpVerifyBody = z.object({
  phone: Phone,
  code: z.string().regex(/^\d{6}$/, 'Exactly 6 digits.'),
  app: App.default('client'),
});
const PatchMeBody = z.object({
  name: z.string().trim().min(2).max(80),
  email: emailAddress(120).optional(),
});
// The phone is required; the handler, not the schema, answers a missing or blank one (the spec's 400
// MissingPhone, not a 422), so the document says required and the pattern says not blank.
const DevLookupQuery = z.object({
  phone: z
    .string()
    .optional()
    .openapi({ pattern: '\\S', param: { required: true } }),
});
const DevTokenBody = z.object({ userId: z.number().int().positive(), app: App });

export const LoginUser = z.object({
  id: z.number(),
  name: z.string().nullable(),
  phone: z.string(),
  email: z.string().nullable(),
  hasClientProfile: z.boolean(),
  hasDriverProfile: z.boolean(),
  isDriverPending: z.boolean(),
});

export const MeUser = z.object({
  id: z.number().int(),
  name: z.string().nullable(),
  phone: z.string(),
  email: z.string().nullable(),
  isActive: z.boolean(),
  clientProfile: z
    .object({ totalOrders: z.number().int(), totalLitersOrdered: z.number().int(), totalSolidaryUSD: z.number() })
    .nullable(),
  driver: orNull(DriverView),
});

/** Phone sign-in and the app user's own profile (spec 4.1, 5.1). */
export const identityRoutes = (ctx: ApiContext, router: Router): void => {
  const auth = phoneAuth(ctx);
  const appUser = requireRole(ctx.auth, 'CLIENT', 'DRIVER');
  const today = () => ctx.clock.now();
  const driverOf = (u: UserRow) =>
    u.role === 'DRIVER' ? findDriverByUserId(ctx.db, u.id, today()) : Promise.resolve(null);
  const currentUser = async (actor: Actor) => {
    const u = await findUserById(ctx, actor.id);
    if (!u) throw unauthorized('Unauthorized', 'Missing, invalid or expired token.');
    return u;
  };

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/auth/otp/request',
      summary: 'Send a 6-digit login code by SMS',
      tags: ['identity'],
      auth: false,
      body: OtpRequestBody,
      responses: {
        200: {
          description: 'Sent; outside production the code is returned',
          schema: z.object({ sent: z.boolean(), mocked: z.boolean(), code: z.string().optional() }),
        },
      },
      errors: { 429: ['SmsSendError'], 502: ['UpstreamError'] },
    },
    async ({ body, req }) => {
      const { code, mocked } = await auth.requestOtp(body.phone, req.ip);
      return ctx.config.APP_ENV === 'production' ? { sent: true, mocked } : { sent: true, mocked, code };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/auth/otp/verify',
      summary: 'Verify a code; log in or sign up',
      tags: ['identity'],
      auth: false,
      body: OtpVerifyBody,
      responses: {
        200: {
          description: 'Signed in',
          schema: z.object({ token: z.string(), isNew: z.boolean(), needsUserData: z.boolean(), user: LoginUser }),
        },
      },
      errors: { 401: ['InvalidOtp'], 403: ['Forbidden'], 409: ['Conflict', 'RoleConflict'], 429: ['Cooldown'] },
    },
    async ({ body, req }) => {
      const { token, user, isNew } = await auth.verifyOtp(body.phone, body.code, body.app, metadataOf(null, req.id));
      return { token, isNew, needsUserData: !user.name, user: loginUserView(user, await driverOf(user)) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/me',
      summary: 'The signed-in user with profile aggregates',
      tags: ['identity'],
      guards: appUser,
      responses: { 200: { description: 'The user', schema: z.object({ user: MeUser }) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ actor }) => {
      const u = await currentUser(actor);
      const stats = u.role === 'CLIENT' ? await ctx.providers.clientProfiles.statsOf(u.id) : null;
      return { user: meView(u, await driverOf(u), stats) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'patch',
      path: '/me',
      summary: 'Set name and email',
      tags: ['identity'],
      guards: appUser,
      body: PatchMeBody,
      responses: { 200: { description: 'Updated', schema: z.object({ user: LoginUser }) } },
      errors: { 403: ['Forbidden'], 404: ['DriverNotFound'], 409: ['Conflict'] },
    },
    async ({ actor, body, req }) => {
      await updateUserProfile(ctx, actor.id, body);
      // The name is part of a cached session's actor.
      await announceSessionChange(ctx, { role: 'USER', id: actor.id });
      const u = await currentUser(actor);
      if (u.role === 'DRIVER' && u.driver_id)
        await ctx.settle(
          (await driverCommands(ctx).rename(u.driver_id, body.name, metadataOf(actor, req.id))).position,
        );
      return { user: loginUserView(u, await driverOf(u)) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/auth/refresh',
      summary: 'Rotate the current token (the old one is revoked)',
      tags: ['identity'],
      guards: appUser,
      responses: { 200: { description: 'New token', schema: z.object({ token: z.string() }) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ req }) => {
      const userId = await auth.revoke(req.appTokenHash!);
      const token = await issueAppToken(ctx, userId);
      await announceSessionChange(ctx, { role: 'USER', id: userId });
      return { token };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/auth/logout',
      summary: 'Revoke the current token',
      tags: ['identity'],
      guards: appUser,
      responses: { 200: { description: 'Revoked', schema: z.object({ ok: z.literal(true) }) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ req }) => {
      await announceSessionChange(ctx, { role: 'USER', id: await auth.revoke(req.appTokenHash!) });
      return { ok: true };
    },
  );

  // The dev endpoints do not exist in production (spec 5.1 rule 4): unregistered, they answer RouteNotFound.
  if (ctx.config.APP_ENV === 'production') return;

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/auth/dev-lookup',
      summary: 'Find a user id by phone (non-production)',
      tags: ['dev'],
      auth: false,
      guards: [directLoopbackOnly],
      query: DevLookupQuery,
      responses: {
        200: {
          description: 'Found',
          schema: z.object({
            userId: z.number().int(),
            name: z.string().nullable(),
            hasClientProfile: z.boolean(),
            hasDriverProfile: z.boolean(),
          }),
        },
      },
      errors: { 400: ['MissingPhone'], 404: ['RouteNotFound', 'UserNotFound'] },
    },
    async ({ query }) => {
      const phone = query.phone?.trim();
      if (!phone) throw badRequest('MissingPhone', 'The phone query parameter is required.');
      const u = await findUserByPhone(ctx, phone);
      if (!u) throw notFound('UserNotFound', 'No user has this phone.');
      return {
        userId: u.id,
        name: u.name,
        hasClientProfile: u.role === 'CLIENT',
        hasDriverProfile: u.role === 'DRIVER',
      };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/auth/dev-token',
      summary: 'Mint a token for an existing user (non-production)',
      tags: ['dev'],
      auth: false,
      guards: [directLoopbackOnly],
      body: DevTokenBody,
      responses: {
        200: {
          description: 'Token',
          schema: z.object({ token: z.string(), user: LoginUser.omit({ email: true, phone: true }) }),
        },
      },
      errors: { 400: ['NoClientProfile', 'NoDriverProfile'], 404: ['RouteNotFound', 'UserNotFound'] },
    },
    async ({ body }) => {
      const u = await findUserById(ctx, body.userId);
      if (!u) throw notFound('UserNotFound', 'No such user.');
      if (body.app === 'client' && u.role !== 'CLIENT')
        throw badRequest('NoClientProfile', 'This user has no client profile.');
      if (body.app === 'driver' && u.role !== 'DRIVER')
        throw badRequest('NoDriverProfile', 'This user has no driver profile.');
      const { email: _e, phone: _p, ...user } = loginUserView(u, await driverOf(u));
      return { token: await issueAppToken(ctx, u.id), user };
    },
  );
};
