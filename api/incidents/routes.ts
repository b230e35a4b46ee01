import type { Router } from 'express';
import { z } from 'zod';
import { forbidden } from '../../domain/errors.js';
import { INCIDENT_DESCRIPTION_MAX, INCIDENT_TYPES } from '../../domain/incident/events.js';
import { metadataOf } from '../../commands/origin.js';
import { reportIncident } from '../../commands/incident/handlers.js';
import type { ApiContext } from '../apiContext.js';
import { findIncident, incidentsOfOrder } from '../../projections/incidents/incidentQueries.js';
import type { IncidentRow } from '../../projections/incidents/incidentViews.js';
import { authenticate } from '../auth.js';
import { bundleForParty } from '../orders/orderReads.js';
import { OrderParams, orderIdFrom } from '../orders/schemas.js';
import { defineRoute } from '../route.js';
import { readBack } from '../readBack.js';

const IncidentBody = z
  .object({
    type: z.enum(INCIDENT_TYPES),
    description: z.string().trim().max(INCIDENT_DESCRIPTION_MAX).nullable().optional(),
  })
  .refine((b) => b.type !== 'OTRO' || !!b.description, {
    path: ['description'],
    message: 'is required when type is OTRO',
  })
  // The same rule for a generated client: an OTRO incident carries a description that is not blank.
  .openapi({
    if: { properties: { type: { const: 'OTRO' } }, required: ['type'] },
    then: { properties: { description: { type: 'string', pattern: '\\S' } }, required: ['description'] },
  } as never);

const Incident = z
  .object({
    id: z.number().int(),
    order_id: z.number().int(),
    type: z.enum(INCIDENT_TYPES),
    description: z.string().nullable(),
    reporter_role: z.enum(['CLIENT', 'DRIVER']),
    reporter: z.object({ id: z.number().int(), name: z.string().nullable() }),
    created_at: z.string(),
  })
  .openapi('Incident');

/** An incident as the API answers it. */
export const incidentView = (r: IncidentRow): z.infer<typeof Incident> => ({
  id: r.id,
  order_id: r.order_id,
  type: r.type,
  description: r.description,
  reporter_role: r.reporter_role,
  reporter: { id: r.reporter_id, name: r.reporter_name },
  created_at: new Date(r.created_at).toISOString(),
});

export const incidentRoutes = (ctx: ApiContext, router: Router): void => {
  const anyone = [authenticate(ctx.auth)];
  const tags = ['incidents'];

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/orders/:orderId/incidents',
      summary: 'Report an incident (the order’s customer or its driver)',
      tags,
      guards: anyone,
      params: OrderParams,
      body: IncidentBody,
      responses: { 201: { description: 'The incident', schema: z.object({ incident: Incident }) } },
      errors: { 403: ['Forbidden'], 404: ['OrderNotFound'], 409: ['Conflict'] },
    },
    async ({ params, body, actor, req, res }) => {
      const orderId = orderIdFrom(params);
      const { position, incident } = await reportIncident(
        ctx,
        actor,
        { orderId, type: body.type, description: body.description || null },
        metadataOf(actor, req.id),
      );
      const row = await readBack(ctx, position, () => findIncident(ctx.db, incident.incidentId));
      res.status(201);
      return { incident: incidentView(row) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/orders/:orderId/incidents',
      summary: 'The order’s incidents, newest first (participants only)',
      tags,
      guards: anyone,
      params: OrderParams,
      responses: { 200: { description: 'Newest first', schema: z.object({ incidents: z.array(Incident) }) } },
      errors: { 403: ['Forbidden'], 404: ['OrderNotFound'] },
    },
    async ({ params, actor }) => {
      const orderId = orderIdFrom(params);
      const { party } = await bundleForParty(ctx, orderId, actor);
      if (party !== 'CLIENT' && party !== 'DRIVER')
        throw forbidden('Forbidden', 'Only the order’s customer and its driver see its incidents.');
      return { incidents: (await incidentsOfOrder(ctx.db, orderId)).map(incidentView) };
    },
  );
};
