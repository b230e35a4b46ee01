import type { Db } from '../../infra/db/database.js';
import { newestFirstPage } from '../../infra/db/keyset.js';
import { iso } from '../../domain/time.js';
import type { NotificationRow } from './notificationsProjector.js';

/** Spec 2.12: one notification as the inbox lists it and as `notifications.<userId>` carries it. */
export const toNotificationView = (r: NotificationRow) => ({
  id: r.id,
  type: r.type,
  title: r.title,
  body: r.body,
  priority: r.priority,
  data: ((typeof r.data === 'string' ? JSON.parse(r.data) : r.data) ?? {}) as Record<string, unknown>,
  read_at: r.read_at ? iso(r.read_at) : null,
  created_at: iso(r.created_at),
});

export type NotificationView = ReturnType<typeof toNotificationView>;

/** A user's inbox page, newest first, keyset on (position, id), from `since` on (the retention window). */
export const notificationPage = (
  db: Db,
  f: { userId: number; since: Date; unreadOnly: boolean; after: [number, string] | undefined; limit: number },
) => {
  let q = db.selectFrom('notifications').selectAll().where('user_id', '=', f.userId).where('created_at', '>=', f.since);
  if (f.unreadOnly) q = q.where('read_at', 'is', null);
  return newestFirstPage(q, ['position', 'id'], f.after, f.limit);
};

/** How many of a user's notifications from `since` on are unread. */
export const unreadCount = async (db: Db, userId: number, since: Date): Promise<number> => {
  const row = await db
    .selectFrom('notifications')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('user_id', '=', userId)
    .where('read_at', 'is', null)
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
};
