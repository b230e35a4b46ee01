import type { Router } from 'express';
import { z } from 'zod';
import { driverCommands } from '../../commands/driver/handlers.js';
import { driverPositions } from '../../commands/driver/positions.js';
import { DOCUMENT_TYPES } from '../../domain/driver/events.js';
import { forbidden, validationError } from '../../domain/errors.js';
import type { ApiContext } from '../apiContext.js';
import { findDriver, listDriverDocuments } from '../../projections/drivers/driverQueries.js';
import { requireRole, type Actor } from '../auth.js';
import { metadataOf } from '../../commands/origin.js';
import { defineRoute, type ErrorAnswer } from '../route.js';
import { documentView, driverView } from './views.js';
import { DriverDocumentView, DriverView } from './viewSchemas.js';
import { readBack } from '../readBack.js';
import { cityId, isoDate, latitude, longitude, requiredTogether } from '../schemas.js';
import { cityExists } from '../../stores/identity/identityQueries.js';

/** The driver positions' rate limit (commands/driver/positions.ts). */
export const POSITION_COOLDOWN: ErrorAnswer = {
  ids: ['Cooldown'],
  description: 'Cooldown: more than 30 positions a minute from this driver (Retry-After)',
};

const ProfileBody = z.object({
  plate: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z0-9-]{4,12}$/, '4 to 12 letters, digits or dashes.'),
  capacityLiters: z.number().int().min(100).max(50_000),
  cityId,
});
const DocumentBody = z.object({
  type: z.enum(DOCUMENT_TYPES),
  expiresAt: isoDate.nullable(),
  // An admin opens this link while reviewing the driver: javascript:, data: or plain http: links must not reach them.
  fileUrl: z
    .url({ protocol: /^https$/, message: 'Must be an https: URL.' })
    .max(2048)
    .optional(),
});
const TankBody = z.object({ availableLiters: z.number().int().min(0).max(50_000) });
const OnlineBody = requiredTogether(
  z.object({ online: z.boolean(), latitude: latitude.optional(), longitude: longitude.optional() }),
  ['latitude', 'longitude'],
  'Give both latitude and longitude, or neither.',
);
const LocationBody = z.object({ latitude: latitude, longitude: longitude });

/** The driver's own onboarding and availability (docs/domain-rules.md, routes beyond the contract). */
const DriverAnswer = { description: 'The driver', schema: z.object({ driver: DriverView }) };

export const driverRoutes = (ctx: ApiContext, router: Router): void => {
  const driverOnly = requireRole(ctx.auth, 'DRIVER');
  const commands = driverCommands(ctx);
  const positions = driverPositions(ctx);
  const driverIdOf = (actor: Actor): number => {
    if (!actor.driverId) throw forbidden('Forbidden', 'This account has no driver profile.');
    return actor.driverId;
  };
  const answer = async (driverId: number, position: number) => ({
    driver: driverView(await readBack(ctx, position, () => findDriver(ctx.db, driverId, ctx.clock.now()))),
  });

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'put',
      path: '/driver/profile',
      summary: 'Set the vehicle profile (plate, tank capacity, city)',
      tags: ['drivers'],
      guards: driverOnly,
      body: ProfileBody,
      responses: { 200: DriverAnswer },
      errors: { 403: ['Forbidden'], 404: ['DriverNotFound'], 409: ['Conflict'] },
    },
    async ({ actor, body, req }) => {
      const driverId = driverIdOf(actor);
      if (!(await cityExists(ctx.db, body.cityId))) throw validationError({ cityId: ['Unknown city.'] });
      const r = await commands.updateProfile(driverId, body, metadataOf(actor, req.id));
      return answer(driverId, r.position);
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/driver/documents',
      summary: 'Record a KYC document (a newer record replaces the older one of its type)',
      tags: ['drivers'],
      guards: driverOnly,
      body: DocumentBody,
      responses: { 201: { description: 'Recorded', schema: z.object({ document: DriverDocumentView }) } },
      errors: { 403: ['Forbidden'], 404: ['DriverNotFound'], 409: ['Conflict'] },
    },
    async ({ actor, body, req, res }) => {
      const driverId = driverIdOf(actor);
      const r = await commands.recordDocument(
        driverId,
        { documentType: body.type, expiresAt: body.expiresAt, fileUrl: body.fileUrl ?? null },
        metadataOf(actor, req.id),
      );
      const document = await readBack(ctx, r.position, async () =>
        (await listDriverDocuments(ctx.db, driverId)).find((d) => d.type === body.type),
      );
      res.status(201);
      return { document: documentView(document) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/driver/documents',
      summary: 'The driver’s recorded documents',
      tags: ['drivers'],
      guards: driverOnly,
      responses: {
        200: { description: 'The documents', schema: z.object({ documents: z.array(DriverDocumentView) }) },
      },
      errors: { 403: ['Forbidden'] },
    },
    async ({ actor }) => ({
      documents: (await listDriverDocuments(ctx.db, driverIdOf(actor))).map(documentView),
    }),
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'patch',
      path: '/driver/tank',
      summary: 'Set the water now in the tank',
      tags: ['drivers'],
      guards: driverOnly,
      body: TankBody,
      responses: { 200: DriverAnswer },
      errors: { 403: ['Forbidden'], 404: ['DriverNotFound'], 409: ['Conflict', 'WrongStatus'] },
    },
    async ({ actor, body, req }) => {
      const driverId = driverIdOf(actor);
      const r = await commands.updateTank(driverId, body.availableLiters, metadataOf(actor, req.id));
      return answer(driverId, r.position);
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/driver/online',
      summary: 'Go online or offline',
      tags: ['drivers'],
      guards: driverOnly,
      body: OnlineBody,
      responses: { 200: DriverAnswer },
      errors: { 403: ['Forbidden'], 404: ['DriverNotFound'], 409: ['Conflict', 'NotAllowed'], 429: POSITION_COOLDOWN },
    },
    async ({ actor, body, req }) => {
      const driverId = driverIdOf(actor);
      const fix =
        body.latitude !== undefined && body.longitude !== undefined
          ? { latitude: body.latitude, longitude: body.longitude }
          : null;
      const checked = fix && (await positions.check(driverId, fix));
      const alongside = checked ? [positions.alongside(driverId, checked)] : [];
      const r = await commands.setOnline(driverId, body.online, metadataOf(actor, req.id), alongside);
      // Going online when already online appends nothing: the position is still the driver's latest.
      if (checked && r.events.length === 0) await positions.record(driverId, checked);
      return answer(driverId, r.position);
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/driver/location',
      summary: 'Report the idle position (used to find nearby drivers)',
      tags: ['drivers'],
      guards: driverOnly,
      body: LocationBody,
      responses: { 204: { description: 'Recorded', schema: null } },
      errors: { 403: ['Forbidden'], 409: ['Conflict'], 429: POSITION_COOLDOWN },
    },
    async ({ actor, body }) => {
      const driverId = driverIdOf(actor);
      await positions.record(driverId, await positions.check(driverId, body));
    },
  );
};
