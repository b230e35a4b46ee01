import { notificationsProjector } from '../../projections/notifications/notificationsProjector.js';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiContext } from '../apiContext.js';
import { NOTIFICATION_TYPES } from '../../projections/notifications/notificationRules.js';
import { notificationPage, toNotificationView, unreadCount } from '../../projections/notifications/notificationView.js';
import { NOTIFICATION_PRIORITIES } from '../../projections/notifications/ruleTypes.js';
import { requireRole } from '../auth.js';
import { defineRoute } from '../route.js';
import { deleteNotification, markAllRead, markRead, retentionStart } from '../../commands/notification/inbox.js';
import { metadataOf } from '../../commands/origin.js';
import { CursorParam, decodeCursor, encodeCursor, pageSchema } from '../cursor.js';
import { queryInteger } from '../schemas.js';

export const NotificationSchema = z
  .object({
    id: z.string().uuid(),
    type: z
      .enum(NOTIFICATION_TYPES as [string, ...string[]])
      .openapi('NotificationType', { description: 'Every notification type the service emits.' }),
    title: z.string(),
    body: z.string(),
    priority: z.enum(NOTIFICATION_PRIORITIES),
    data: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'Ids of what it is about, e.g. {order_id, offer_id} for offer_received.' }),
    read_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('Notification');

const ListQuery = z.object({
  limit: queryInteger(1, 100).default(30),
  cursor: CursorParam,
  filter: z.enum(['unread']).optional(),
});

const IdParams = z.object({ id: z.string().openapi({ format: 'uuid' }) });

const NotificationPage = pageSchema(NotificationSchema);

/** The (position, id) of the last entry of the previous page. */
const isPositionIdKey = (k: unknown): k is [number, string] =>
  Array.isArray(k) &&
  k.length === 2 &&
  Number.isSafeInteger(k[0]) &&
  (k[0] as number) >= 0 &&
  typeof k[1] === 'string' &&
  /^[0-9a-f-]{36}$/.test(k[1]);

/** Spec 4.12: the caller's inbox (app users: CLIENT and DRIVER). */
export const notificationRoutes = (ctx: ApiContext, router: Router): void => {
  const guards = requireRole(ctx.auth, 'CLIENT', 'DRIVER');
  const tags = ['notifications'];

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/notifications',
      summary: 'Inbox, newest first (cursor pages); filter=unread for unread only',
      tags,
      guards,
      query: ListQuery,
      responses: { 200: { description: 'A page of notifications', schema: NotificationPage } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ query, actor }) => {
      const after = decodeCursor(query.cursor, isPositionIdKey);
      await ctx.caughtUp(notificationsProjector.name);
      const { rows: page, hasMore } = await notificationPage(ctx.db, {
        userId: actor.id,
        since: retentionStart(ctx),
        unreadOnly: query.filter === 'unread',
        after,
        limit: query.limit,
      });
      const last = page[page.length - 1];
      return {
        items: page.map(toNotificationView),
        next_cursor: hasMore ? encodeCursor([Number(last.position), last.id]) : null,
        has_more: hasMore,
      };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/notifications/unread-count',
      summary: 'How many notifications are unread',
      tags,
      guards,
      responses: { 200: { description: 'Unread count', schema: z.object({ unread_count: z.number().int() }) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ actor }) => {
      await ctx.caughtUp(notificationsProjector.name);
      return { unread_count: await unreadCount(ctx.db, actor.id, retentionStart(ctx)) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/notifications/read-all',
      summary: 'Mark every notification read',
      tags,
      guards,
      responses: { 200: { description: 'Done', schema: z.object({ ok: z.literal(true) }) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ actor, req }) => {
      await markAllRead(ctx, actor, metadataOf(actor, req.id));
      return { ok: true };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/notifications/:id/read',
      summary: 'Mark one notification read (idempotent: a second call answers the first read_at)',
      tags,
      guards,
      params: IdParams,
      responses: { 200: { description: 'When it was read', schema: z.object({ read_at: z.string() }) } },
      errors: { 403: ['Forbidden'], 404: ['NotFound'] },
    },
    async ({ params, actor, req }) => markRead(ctx, actor, params.id, metadataOf(actor, req.id)),
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'delete',
      path: '/notifications/:id',
      summary: 'Delete one notification',
      tags,
      guards,
      params: IdParams,
      responses: { 200: { description: 'Deleted', schema: z.object({ ok: z.literal(true) }) } },
      errors: { 403: ['Forbidden'], 404: ['NotFound'] },
    },
    async ({ params, actor, req }) => {
      await deleteNotification(ctx, actor, params.id, metadataOf(actor, req.id));
      return { ok: true };
    },
  );
};
