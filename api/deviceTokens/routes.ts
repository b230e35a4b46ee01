import type { Router } from 'express';
import { z } from 'zod';
import type { ApiContext } from '../apiContext.js';
import {
  DEVICE_TOKENS_CHANGED,
  registerDeviceToken,
  removeDeviceToken,
  type DeviceTokensChange,
} from '../../stores/push/deviceTokens.js';
import { requireRole } from '../auth.js';
import { defineRoute } from '../route.js';

const RegisterBody = z.object({ token: z.string().min(1).max(512), platform: z.enum(['android', 'ios']) });
const DeleteBody = z.object({ token: z.string().min(1).max(512) });
const DeviceTokenSchema = z
  .object({ id: z.number().int(), platform: z.enum(['android', 'ios']) })
  .openapi('DeviceToken');

/** Spec 4.13: the caller's push devices. */
export const deviceTokenRoutes = (ctx: ApiContext, router: Router): void => {
  // Every push gateway keeps users' devices a while (commands/push/pushGateway.ts): tell them all, best effort.
  const devicesChanged = (change: DeviceTokensChange) =>
    ctx.bus
      .publish(DEVICE_TOKENS_CHANGED, change)
      .catch((err) => ctx.logger.warn({ err }, 'could not announce a device token change'));
  const guards = requireRole(ctx.auth, 'CLIENT', 'DRIVER');
  const tags = ['device-tokens'];

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/device-tokens',
      summary: 'Register a device for push (idempotent: the same token keeps its id)',
      tags,
      guards,
      body: RegisterBody,
      responses: { 201: { description: 'Registered', schema: z.object({ device_token: DeviceTokenSchema }) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ body, actor, res }) => {
      const device_token = await registerDeviceToken(ctx.db, actor.id, body.token, body.platform);
      await devicesChanged({});
      res.status(201);
      return { device_token };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'delete',
      path: '/device-tokens',
      summary: 'Forget a device (idempotent, also for an unknown token)',
      tags,
      guards,
      body: DeleteBody,
      responses: { 200: { description: 'Done', schema: z.object({ ok: z.literal(true) }) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ body, actor }) => {
      await removeDeviceToken(ctx.db, actor.id, body.token);
      await devicesChanged({ userId: actor.id });
      return { ok: true };
    },
  );
};
