import type { Router } from 'express';
import { z } from 'zod';
import { page } from '../../orders/schemas.js';
import { adminAccounts } from '../../../commands/identity/adminAccounts.js';
import type { ApiContext } from '../../apiContext.js';
import { requireRole } from '../../auth.js';
import { defineRoute } from '../../route.js';
import { pageOf } from '../../openapi.js';
import { AdminSchema, adminView } from './views.js';
import { cityId, emailAddress, queryInteger } from '../../schemas.js';

const CityIds = z.array(cityId).max(200);
const CreateBody = z.object({
  email: emailAddress(191),
  name: z.string().trim().min(2).max(80),
  superAdmin: z.boolean().default(false),
  auditor: z.boolean().default(false),
  allCities: z.boolean().optional(),
  cityIds: CityIds.default([]),
});
const PatchBody = z
  .object({
    email: emailAddress(191),
    name: z.string().trim().min(2).max(80),
    superAdmin: z.boolean(),
    auditor: z.boolean(),
    allCities: z.boolean(),
    cityIds: CityIds,
    isActive: z.boolean(),
  })
  .partial();
const IdParams = z.object({ id: queryInteger(1, Number.MAX_SAFE_INTEGER) });
const PageQuery = z.object({ limit: queryInteger(1, 100).default(25), page });

/** Super admins manage admins and their cities (docs/domain-rules.md, routes beyond the contract). */
export const adminAdminsRoutes = (ctx: ApiContext, router: Router): void => {
  const accounts = adminAccounts(ctx);
  const superAdmin = requireRole(ctx.auth, 'SUPER_ADMIN');

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/admins',
      summary: 'Invite an admin (a confirm-account mail is sent)',
      tags: ['admin-admins'],
      guards: superAdmin,
      body: CreateBody,
      responses: { 201: { description: 'Created', schema: z.object({ admin: AdminSchema }) } },
      errors: { 403: ['Forbidden'], 409: ['Conflict'] },
    },
    async ({ body, res }) => {
      const a = await accounts.create(body);
      res.status(201);
      return { admin: adminView(a) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/admins',
      summary: 'Admins, page by page',
      tags: ['admin-admins'],
      guards: superAdmin,
      query: PageQuery,
      responses: { 200: { description: 'One page', schema: pageOf(AdminSchema) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ query }) => {
      const { items, total } = await accounts.list(query.limit, query.page);
      return {
        items: items.map(adminView),
        meta: {
          total,
          per_page: query.limit,
          current_page: query.page,
          last_page: Math.max(1, Math.ceil(total / query.limit)),
        },
      };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'patch',
      path: '/admin/admins/:id',
      summary: 'Change an admin (a new email is confirmed by mail)',
      tags: ['admin-admins'],
      guards: superAdmin,
      params: IdParams,
      body: PatchBody,
      responses: { 200: { description: 'The admin', schema: z.object({ admin: AdminSchema }) } },
      errors: { 403: ['Forbidden'], 404: ['NotFound'], 409: ['Conflict', 'OwnAccount'] },
    },
    async ({ params, body, actor }) => ({ admin: adminView(await accounts.update(actor.id, params.id, body)) }),
  );
};
