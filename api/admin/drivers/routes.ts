import type { Router } from 'express';
import { z } from 'zod';
import { page } from '../../orders/schemas.js';
import { cityIdParam, queryInteger } from '../../schemas.js';
import { driverCommands } from '../../../commands/driver/handlers.js';
import { DRIVER_STATUSES, KYC_STATES } from '../../../domain/driver/events.js';
import { notFound } from '../../../domain/errors.js';
import type { ApiContext } from '../../apiContext.js';
import {
  findDriver,
  listDriverDocuments,
  listDrivers,
  type DriverRecord,
} from '../../../projections/drivers/driverQueries.js';
import { requireRole, type Actor } from '../../auth.js';
import { cityScopeOf } from '../cityScope.js';
import type { CityScope } from '../../../projections/customers/customerQueries.js';
import { documentView, driverView } from '../../drivers/views.js';
import { metadataOf } from '../../../commands/origin.js';
import { DriverDocumentView, DriverView } from '../../drivers/viewSchemas.js';
import { pageOf } from '../../openapi.js';
import { defineRoute } from '../../route.js';
import { readBack } from '../../readBack.js';

const DriverParams = z.object({ driverId: queryInteger(1, Number.MAX_SAFE_INTEGER) });
const ReasonBody = z.object({ reason: z.string().trim().min(3).max(500) });
const ListQuery = z.object({
  status: z.enum(DRIVER_STATUSES).optional(),
  kyc_state: z.enum(KYC_STATES).optional(),
  city_id: cityIdParam.optional(),
  q: z.string().trim().max(80).optional().openapi({
    description: 'Any part of the name, phone, id number (cédula) or plate; accents, case and punctuation ignored',
  }),
  limit: queryInteger(1, 100).default(25),
  page,
});

/**
 * Drivers are scoped to the admin's cities like customers, orders and reports (api/admin/cityScope.ts); a
 * driver without a city yet (an unfinished application) is visible to all-cities admins only.
 */
const inScope = (scope: CityScope, d: DriverRecord) =>
  scope.all || (d.cityId !== null && scope.cityIds.includes(d.cityId));

export const adminDriversRoutes = (ctx: ApiContext, router: Router): void => {
  const admin = requireRole(ctx.auth, 'ADMIN');
  const commands = driverCommands(ctx);
  const scopedDriver = async (actor: Actor, driverId: number) => {
    const d = await findDriver(ctx.db, driverId, ctx.clock.now());
    if (!d || !inScope(await cityScopeOf(ctx, actor), d)) throw notFound('DriverNotFound', 'No such driver.');
    return d;
  };
  const answer = async (driverId: number, position: number) => ({
    driver: driverView(await readBack(ctx, position, () => findDriver(ctx.db, driverId, ctx.clock.now()))),
  });

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/drivers',
      summary: 'Drivers with status and KYC state, page by page',
      tags: ['admin-drivers'],
      guards: admin,
      query: ListQuery,
      responses: { 200: { description: 'One page', schema: pageOf(DriverView) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ query, actor }) => {
      const scope = await cityScopeOf(ctx, actor);
      const { items, total } = await listDrivers(
        ctx.db,
        {
          status: query.status,
          kycState: query.kyc_state,
          cityId: query.city_id,
          q: query.q || undefined,
          cityIds: scope.all ? undefined : scope.cityIds,
          limit: query.limit,
          page: query.page,
        },
        ctx.clock.now(),
      );
      return {
        items: items.map(driverView),
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
      method: 'get',
      path: '/admin/drivers/:driverId',
      summary: 'One driver with the documents on file',
      tags: ['admin-drivers'],
      guards: admin,
      params: DriverParams,
      responses: {
        200: {
          description: 'The driver and documents',
          schema: z.object({ driver: DriverView, documents: z.array(DriverDocumentView) }),
        },
      },
      errors: { 403: ['Forbidden'], 404: ['DriverNotFound'] },
    },
    async ({ params, actor }) => {
      const d = await scopedDriver(actor, params.driverId);
      return { driver: driverView(d), documents: (await listDriverDocuments(ctx.db, d.driverId)).map(documentView) };
    },
  );

  const action = (
    path: string,
    summary: string,
    run: (
      driverId: number,
      actor: Actor,
      reason: string,
      m: ReturnType<typeof metadataOf>,
    ) => Promise<{ position: number }>,
    withReason: boolean,
  ) =>
    defineRoute(
      router,
      ctx.openapi,
      {
        method: 'post',
        path: `/admin/drivers/:driverId/${path}`,
        summary,
        tags: ['admin-drivers'],
        guards: admin,
        params: DriverParams,
        ...(withReason ? { body: ReasonBody } : {}),
        responses: { 200: { description: 'The driver', schema: z.object({ driver: DriverView }) } },
        errors: { 403: ['Forbidden'], 404: ['DriverNotFound'], 409: ['Conflict', 'WrongStatus'] },
      },
      async ({ params, actor, body, req }) => {
        await scopedDriver(actor, params.driverId);
        const r = await run(
          params.driverId,
          actor,
          (body as { reason?: string } | undefined)?.reason ?? '',
          metadataOf(actor, req.id),
        );
        return answer(params.driverId, r.position);
      },
    );

  action(
    'approve',
    'Approve the KYC: the driver becomes ACTIVE',
    (id, a, _r, m) => commands.approve(id, a.id, m),
    false,
  );
  action('reject', 'Reject the KYC with a reason', (id, a, reason, m) => commands.reject(id, a.id, reason, m), true);
  action(
    'suspend',
    'Suspend an ACTIVE driver (goes offline)',
    (id, a, reason, m) => commands.suspend(id, a.id, reason, m),
    true,
  );
  action('reinstate', 'Reinstate a SUSPENDED driver', (id, a, _r, m) => commands.reinstate(id, a.id, m), false);
};
