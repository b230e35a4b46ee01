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
