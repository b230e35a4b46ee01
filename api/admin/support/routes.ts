import type { Router } from 'express';
import { z } from 'zod';
import { channelOfRoom, supportKindOf } from '../../../domain/chat/rules.js';
import {
  claimRoom,
  markSupportRoomRead,
  readSupportRoom,
  releaseRoom,
  sendSupportMessage,
} from '../../../commands/chat/chatCommands.js';
import { toSupportStatus } from '../../../stores/chat/chatQueries.js';
import type { ApiContext } from '../../apiContext.js';
import { requireRole } from '../../auth.js';
import {
  MessageSchema,
  ReadMarkerSchema,
  RoomParams,
  SendBody,
  SupportStatusSchema,
  roomIdFrom,
} from '../../chat/schemas.js';
import { afterTimeId, CursorParam, encodeCursor, pageSchema } from '../../cursor.js';
import { limit } from '../../orders/schemas.js';
import { defineRoute, type ErrorAnswers } from '../../route.js';
import { supportInbox } from '../../../stores/chat/supportInbox.js';
import { ordersWithParties } from '../../../projections/orders/orderQueries.js';

const InboxQuery = z.object({
  bucket: z.enum(['pool', 'mine']).default('pool'),
  kind: z.enum(['driver', 'client']).optional(),
  limit: limit(25),
  cursor: CursorParam,
});

const InboxItemSchema = z
  .object({
    order_id: z.number().int(),
    room_id: z.number().int(),
    kind: z.enum(['driver', 'client']),
    channel: z.string(),
    state: z.enum(['pool', 'claimed']),
    assigned_admin: z.object({ id: z.number().int(), name: z.string() }).nullable(),
    last_message: z
      .object({
        sender_role: z.string(),
        sender_name: z.string().nullable(),
        content: z.string(),
        created_at: z.string(),
      })
      .nullable(),
  })
  .openapi('SupportInboxItem');

const Party = z.object({ name: z.string().nullable(), phone: z.string() });
/** What the operator answers about: the order's status, who ordered it and who delivers it. */
const RoomOrderSchema = z.object({
  id: z.number().int(),
  status: z.string(),
  client: Party.nullable(),
  driver: Party.extend({ plate: z.string().nullable() }).nullable(),
});

const RoomReadSchema = z.object({
  room_id: z.number().int(),
  order_id: z.number().int(),
  kind: z.enum(['driver', 'client']),
  channel: z.string(),
  order: RoomOrderSchema.nullable(),
  messages: z.array(MessageSchema),
  status: SupportStatusSchema,
});

const StatusBody = z.object({ status: SupportStatusSchema });

const ERRORS = {
  400: { ids: ['SupportError'], description: 'SupportError: the order is not active' },
  403: { ids: ['SupportError'], description: 'SupportError: claimed by another admin' },
  404: { ids: ['SupportError'], description: 'SupportError: unknown room, or not a support room' },
  409: { ids: ['SupportError'], description: 'SupportError: lost the claim race' },
} satisfies ErrorAnswers;

/** The support inbox, global (no city scoping). */
export const supportRoutes = (ctx: ApiContext, router: Router): void => {
  const guards = requireRole(ctx.auth, 'ADMIN');
  const tags = ['admin-support'];

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/order-support',
      summary: 'Support inbox, newest activity first: the pool (default) or the caller’s claimed rooms',
      tags,
      guards,
      query: InboxQuery,
      responses: { 200: { description: 'A page of support rooms', schema: pageSchema(InboxItemSchema) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ query, actor }) => {
      const page = await supportInbox(ctx.db, {
        bucket: query.bucket,
        adminId: actor.id,
        kind: query.kind,
        limit: query.limit,
        after: afterTimeId(query.cursor),
      });
      const last = page.last;
      return {
        items: page.items,
        next_cursor: page.hasMore && last ? encodeCursor([new Date(last.activity_at).toISOString(), last.id]) : null,
        has_more: page.hasMore,
      };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/chat-rooms/:roomId',
      summary: 'Read a support room (last 50 messages, oldest first); read-only',
      tags,
      guards,
      params: RoomParams,
      responses: { 200: { description: 'The room', schema: RoomReadSchema } },
      errors: ERRORS,
    },
    async ({ params, actor }) => {
      const { room, messages } = await readSupportRoom(ctx, actor, roomIdFrom(params, 'SupportError'));
      const [order] = await ordersWithParties(ctx.db, [room.order_id], ctx.clock.now());
      const driver = order?.drivers.find((d) => d.driverId === order.row.driver_id);
      return {
        room_id: room.id,
        order_id: room.order_id,
        kind: supportKindOf(room.type),
        channel: channelOfRoom(room.id),
        order: order
          ? {
              id: order.row.id,
              status: order.row.status,
              client: order.client && { name: order.client.name, phone: order.client.phone },
              driver: driver ? { name: driver.name, phone: driver.phone, plate: driver.plate } : null,
            }
          : null,
        messages,
        status: toSupportStatus(room),
      };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/chat-rooms/:roomId/claim',
      summary: 'Claim a pooled room (idempotent for its owner)',
      tags,
      guards,
      params: RoomParams,
      responses: { 200: { description: 'Claimed by the caller', schema: StatusBody } },
      errors: ERRORS,
    },
    async ({ params, actor }) => claimRoom(ctx, actor, roomIdFrom(params, 'SupportError')),
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/chat-rooms/:roomId/messages',
      summary: 'Send a message (claims a pooled room)',
      tags,
      guards,
      params: RoomParams,
      body: SendBody,
      responses: {
        201: {
          description: 'Stored and published on the room’s channel',
          schema: z.object({ message: MessageSchema, channel: z.string(), status: SupportStatusSchema }),
        },
      },
      errors: ERRORS,
    },
    async ({ params, body, actor, res }) => {
      const sent = await sendSupportMessage(ctx, actor, roomIdFrom(params, 'SupportError'), body.content);
      res.status(201);
      return sent;
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/chat-rooms/:roomId/release',
      summary: 'Release the room to the pool (assigned admin only)',
      tags,
      guards,
      params: RoomParams,
      responses: {
        200: { description: 'Back in the pool', schema: StatusBody },
      },
      errors: {
        403: { ids: ['SupportError'], description: 'SupportError: not the assigned admin' },
        404: { ids: ['SupportError'], description: 'SupportError: unknown room' },
        409: { ids: ['SupportError'], description: 'SupportError: the room is not claimed' },
      },
    },
    async ({ params, actor }) => releaseRoom(ctx, actor, roomIdFrom(params, 'SupportError')),
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/chat-rooms/:roomId/read',
      summary: 'Mark the room read up to now (assigned admin only)',
      tags,
      guards,
      params: RoomParams,
      responses: { 200: { description: 'When it was read', schema: ReadMarkerSchema } },
      errors: { 403: ERRORS[403], 404: ERRORS[404] },
    },
    async ({ params, actor }) => markSupportRoomRead(ctx, actor, roomIdFrom(params, 'SupportError')),
  );
};
