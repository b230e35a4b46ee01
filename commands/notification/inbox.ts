import { appendToStream } from '../../infra/eventStore/port.js';
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../domain/actor.js';
import { notFound } from '../../domain/errors.js';
import type { CommandDeps } from '../deps.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import { inboxStream, RETENTION_STREAM, type InboxEvent } from '../../domain/notification/events.js';
import { notificationsProjector } from '../../projections/notifications/notificationsProjector.js';
import { toNotificationView, type NotificationView } from '../../projections/notifications/notificationView.js';
import { SYSTEM } from '../origin.js';

type Deps = Pick<CommandDeps, 'caughtUp' | 'clock' | 'config' | 'db' | 'settle' | 'store'>;

const DAY_MS = 86_400_000;

/** Entries created before this are outside the retention window: never listed, counted or found. */
export const retentionStart = (ctx: Deps, now = ctx.clock.now()): Date =>
  new Date(now.getTime() - ctx.config.NOTIFICATION_RETENTION_DAYS * DAY_MS);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The caller's own notification inside the window, or 404 NotFound (missing, someone else's, expired). */
export const findOwnNotification = async (ctx: Deps, actor: Actor, id: string): Promise<NotificationView> => {
  if (UUID.test(id)) await ctx.caughtUp(notificationsProjector.name);
  const row = UUID.test(id)
    ? await ctx.db
        .selectFrom('notifications')
        .selectAll()
        .where('id', '=', id.toLowerCase())
        .where('user_id', '=', actor.id)
        .where('created_at', '>=', retentionStart(ctx))
        .executeTakeFirst()
    : undefined;
  if (!row) throw notFound('NotFound', 'Notification not found.');
  return toNotificationView(row);
};

/**
 * Inbox changes are events on the user's inbox stream (order inside one inbox does not matter: read and
 * delete are idempotent in the projector, so no expected revision is needed); the caller then waits
 * for the read model, as every command does.
 */
export const recordInboxEvent = async (
  ctx: Deps,
  streamId: string,
  event: InboxEvent,
  metadata: EventMetadata,
): Promise<void> => {
  const { position } = await appendToStream(
    ctx.store,
    streamId,
    [{ eventId: randomUUID(), type: event.type, data: event.data, metadata }],
    {
      expectedRevision: 'any',
    },
  );
  await ctx.settle(position, [notificationsProjector.name]);
};

export const markRead = async (
  ctx: Deps,
  actor: Actor,
  id: string,
  metadata: EventMetadata,
): Promise<{ read_at: string }> => {
  const found = await findOwnNotification(ctx, actor, id);
  if (found.read_at) return { read_at: found.read_at };
  await recordInboxEvent(
    ctx,
    inboxStream(actor.id),
    {
      type: 'NotificationRead',
      data: { userId: actor.id, notificationId: found.id, readAt: ctx.clock.now().toISOString() },
    },
    metadata,
  );
  const after = await findOwnNotification(ctx, actor, id);
  // Two racing reads both append; the projector keeps the first read_at and both callers see it (the
  // fallback only answers when the read model lagged past the settle timeout).
  return { read_at: after.read_at ?? ctx.clock.now().toISOString() };
};

export const markAllRead = async (ctx: Deps, actor: Actor, metadata: EventMetadata): Promise<void> => {
  await ctx.caughtUp(notificationsProjector.name);
  const unread = await ctx.db
    .selectFrom('notifications')
    .select('id')
    .where('user_id', '=', actor.id)
    .where('read_at', 'is', null)
    .where('created_at', '>=', retentionStart(ctx))
    .limit(1)
    .executeTakeFirst();
  if (!unread) return;
  await recordInboxEvent(
    ctx,
    inboxStream(actor.id),
    { type: 'AllNotificationsRead', data: { userId: actor.id, readAt: ctx.clock.now().toISOString() } },
    metadata,
  );
};

export const deleteNotification = async (
  ctx: Deps,
  actor: Actor,
  id: string,
  metadata: EventMetadata,
): Promise<void> => {
  const found = await findOwnNotification(ctx, actor, id);
  await recordInboxEvent(
    ctx,
    inboxStream(actor.id),
    {
      type: 'NotificationDeleted',
      data: { userId: actor.id, notificationId: found.id, deletedAt: ctx.clock.now().toISOString() },
    },
    metadata,
  );
};

/** The retention job: one purge event when something has left the window (nothing is appended otherwise). */
export const purgeExpired = async (ctx: Deps, now: Date): Promise<void> => {
  const before = retentionStart(ctx, now);
  const old = await ctx.db
    .selectFrom('notifications')
    .select('id')
    .where('created_at', '<', before)
    .limit(1)
    .executeTakeFirst();
  if (!old) return;
  await recordInboxEvent(
    ctx,
    RETENTION_STREAM,
    { type: 'NotificationsPurged', data: { before: before.toISOString(), purgedAt: now.toISOString() } },
    SYSTEM,
  );
};
