import type { Router } from 'express';
import { z } from 'zod';
import { listMessages, markRoomRead, resolveRoom, sendMessage } from '../../commands/chat/chatCommands.js';
import { forbidden, notFound } from '../../domain/errors.js';
import type { ApiContext } from '../apiContext.js';
import { authenticate, type Actor } from '../auth.js';
import { idFrom } from '../orders/schemas.js';
import { defineRoute, type ErrorAnswers } from '../route.js';
import {
  MessageSchema,
  OrderParams,
  ReadMarkerSchema,
  RoomParams,
  RoomSchema,
  RoomType,
  SendBody,
  roomIdFrom,
} from './schemas.js';

const ResolveBody = z.object({ type: RoomType });

const ERRORS = {
  400: { ids: ['ChatError'], description: 'ChatError: the order is outside the room’s window' },
  403: { ids: ['ChatError'], description: 'ChatError: not a member of this chat' },
  404: { ids: ['ChatError'], description: 'ChatError: unknown order or room' },
} satisfies ErrorAnswers;

/** App chat is for the order's client and driver; admins answer support through /admin/chat-rooms. */
const appUser = (actor: Actor): Actor => {
  if (actor.role === 'ADMIN') throw forbidden('ChatError', 'Admins use the support inbox (/admin/chat-rooms).');
  return actor;
};

/** In-order chat for clients and drivers. */
export const chatRoutes = (ctx: ApiContext, router: Router): void => {
  const guards = [authenticate(ctx.auth)];
  const tags = ['chat'];

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/orders/:orderId/chat-rooms',
      summary: 'Resolve (create if needed) the order’s chat room of a type; idempotent',
      tags,
      guards,
      params: OrderParams,
      body: ResolveBody,
      responses: { 200: { description: 'The room with its last 50 messages', schema: z.object({ room: RoomSchema }) } },
      errors: ERRORS,
    },
    async ({ params, body, actor }) => {
      const orderId = idFrom(params.orderId, () => notFound('ChatError', 'Order not found.'));
      return { room: await resolveRoom(ctx, appUser(actor), orderId, body.type) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/chat-rooms/:roomId/messages',
      summary: 'The room’s last 50 messages, oldest first',
      tags,
      guards,
      params: RoomParams,
      responses: {
        200: { description: 'Messages', schema: z.object({ channel: z.string(), messages: z.array(MessageSchema) }) },
      },
      errors: ERRORS,
    },
    async ({ params, actor }) => listMessages(ctx, appUser(actor), roomIdFrom(params, 'ChatError')),
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/chat-rooms/:roomId/messages',
      summary: 'Send a message (paid window for client-driver rooms, active window for support rooms)',
      tags,
      guards,
      params: RoomParams,
      body: SendBody,
      responses: {
        201: {
          description: 'Stored and published on the room’s channel',
          schema: z.object({ message: MessageSchema, channel: z.string() }),
        },
      },
      errors: ERRORS,
    },
    async ({ params, body, actor, res }) => {
      const sent = await sendMessage(ctx, appUser(actor), roomIdFrom(params, 'ChatError'), body.content);
      res.status(201);
      return sent;
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/chat-rooms/:roomId/read',
      summary: 'Mark the room read for the caller',
      tags,
      guards,
      params: RoomParams,
      responses: { 200: { description: 'When it was read', schema: ReadMarkerSchema } },
      errors: ERRORS,
    },
    async ({ params, actor }) => markRoomRead(ctx, appUser(actor), roomIdFrom(params, 'ChatError')),
  );
};
