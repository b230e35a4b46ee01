import type { Router } from 'express';
import { z } from 'zod';
import { adminAccounts, findAdmin, type AdminRow } from '../../../commands/identity/adminAccounts.js';
import { adminSignInLimits } from '../../../commands/identity/adminSignInLimits.js';
import type { ApiContext } from '../../apiContext.js';
import { adminJwt } from '../../../infra/identity/adminJwt.js';
import { invalidateJwt, sendRenewedJwt } from '../../../infra/identity/authenticator.js';
import { announceSessionChange } from '../../../infra/identity/sessionChanges.js';
import { unauthorized } from '../../../domain/errors.js';
import { requireRole } from '../../auth.js';
import { defineRoute } from '../../route.js';
import { AdminSchema, adminView } from '../admins/views.js';
import { emailAddress } from '../../schemas.js';

const Email = emailAddress(191);
const Password = z.string().min(8).max(128);
const LoginBody = z.object({ email: Email, password: z.string().min(1).max(128) });
const ConfirmAccountBody = z.object({ token: z.string().min(1).max(200), password: Password });
const ResetParams = z.object({ email: Email });
const RecoverBody = z.object({ email: Email, token: z.string().min(1).max(200), password: Password });
const ConfirmEmailBody = z.object({ email: Email, token: z.string().min(1).max(200) });

const TokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal('bearer'),
  expires_in: z.number(),
  expires_in_datetime: z.string(),
});

/** The email-and-password scheme under /admin/auth (docs/domain-rules.md, who is who). */
export const adminAuthRoutes = (ctx: ApiContext, router: Router): void => {
  const jwt = adminJwt(ctx.config, ctx.clock);
  const accounts = adminAccounts(ctx);
  const limits = adminSignInLimits(ctx);
  const admin = requireRole(ctx.auth, 'ADMIN');
  const graceEnd = () => new Date(ctx.clock.now().getTime() + ctx.config.ADMIN_JWT_GRACE_SECONDS * 1000);
  const tokenBody = async (a: AdminRow, oat?: number) => {
    const issued = await jwt.issue(a.id, oat, a.auditor);
    return {
      access_token: issued.token,
      token_type: 'bearer' as const,
      expires_in: jwt.ttlSeconds,
      expires_in_datetime: new Date(issued.claims.exp * 1000).toISOString(),
    };
  };

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/auth/login',
      summary: 'Admin sign-in with email and password',
      tags: ['admin-auth'],
      auth: false,
      body: LoginBody,
      responses: { 200: { description: 'Token', schema: TokenResponse.extend({ user: AdminSchema }) } },
      errors: {
        401: { ids: ['Unauthorized'], description: 'Unauthorized: wrong credentials' },
        429: {
          ids: ['Cooldown'],
          description: 'Cooldown: too many failed logins from this address or for this account (Retry-After)',
        },
      },
    },
    async ({ body, req }) => {
      const a: AdminRow = await limits.login(body.email, req.ip, () => accounts.login(body.email, body.password));
      return { ...(await tokenBody(a)), user: adminView(a) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/auth/logout',
      summary: 'Invalidate the current token (2-minute grace)',
      tags: ['admin-auth'],
      guards: admin,
      auditor: 'read',
      responses: { 204: { description: 'Logged out', schema: null } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ req }) => {
      await invalidateJwt(ctx.db, ctx.config, req.adminJwtClaims!, graceEnd(), 'logout');
      await announceSessionChange(ctx, { role: 'ADMIN', id: req.adminJwtClaims!.adminId });
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/auth/refresh-jwt',
      summary: 'Exchange the current token for a new one (the old one keeps a 2-minute grace)',
      tags: ['admin-auth'],
      guards: admin,
      auditor: 'read',
      responses: { 200: { description: 'Token; also in the Authorization response header', schema: TokenResponse } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ req, res, actor }) => {
      const claims = req.adminJwtClaims!;
      // The grace after logout lets requests already sent finish; it must not start a new session.
      if (req.adminJwtLoggedOut) throw unauthorized('Unauthorized', 'This token was logged out.');
      await invalidateJwt(ctx.db, ctx.config, claims, graceEnd(), 'replaced');
      const a = await findAdmin(ctx.db, actor.id);
      if (!a) throw unauthorized('Unauthorized', 'Missing, invalid or expired token.');
      const body = await tokenBody(a, claims.oat);
      sendRenewedJwt(res, body.access_token);
      return body;
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/auth/confirm-account',
      summary: 'Confirm an invited account and set its password (one-time)',
      tags: ['admin-auth'],
      auth: false,
      body: ConfirmAccountBody,
      responses: { 204: { description: 'Confirmed', schema: null } },
    },
    async ({ body }) => {
      await accounts.confirmAccount(body.token, body.password);
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/auth/password-reset/:email',
      summary: 'Mail a recovery token (answers 204 whether or not the email exists)',
      tags: ['admin-auth'],
      auth: false,
      params: ResetParams,
      responses: { 204: { description: 'Accepted', schema: null } },
      errors: {
        429: {
          ids: ['Cooldown'],
          description: 'Cooldown: too many reset requests from this address or for this account (Retry-After)',
        },
      },
    },
    async ({ params, req }) => {
      await limits.passwordReset(params.email, req.ip);
      await accounts.requestPasswordReset(params.email);
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/auth/recover-password',
      summary: 'Set a new password with a recovery token (valid 24 hours)',
      tags: ['admin-auth'],
      auth: false,
      body: RecoverBody,
      responses: { 204: { description: 'Password changed', schema: null } },
    },
    async ({ body }) => {
      await accounts.recoverPassword(body.email, body.token, body.password);
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/auth/confirm-email',
      summary: 'Confirm an email change',
      tags: ['admin-auth'],
      auth: false,
      body: ConfirmEmailBody,
      responses: { 204: { description: 'Email changed', schema: null } },
    },
    async ({ body }) => {
      await accounts.confirmEmail(body.email, body.token);
    },
  );
};
