import { z } from 'zod';
import { instant, type EventsOf } from '../eventSchema.js';

/**
 * What a user does to their inbox, recorded as events so that the inbox read model stays a pure projection
 * of the log (a rebuild gives back the same read markers and deletions). One stream per user; retention
 * purges go to one stream of their own.
 */
export const inboxStream = (userId: number): string => `notification-inbox-${userId}`;
export const RETENTION_STREAM = 'notification-retention';

export const NotificationReadData = z.object({
  userId: z.int(),
  notificationId: z.string(),
  readAt: instant,
});
export type NotificationReadData = z.infer<typeof NotificationReadData>;

/** Marks every entry the user had when this event was recorded; later ones stay unread. */
export const AllNotificationsReadData = z.object({
  userId: z.int(),
  readAt: instant,
});
export type AllNotificationsReadData = z.infer<typeof AllNotificationsReadData>;

export const NotificationDeletedData = z.object({
  userId: z.int(),
  notificationId: z.string(),
  deletedAt: instant,
});
export type NotificationDeletedData = z.infer<typeof NotificationDeletedData>;

/** Entries created before `before` leave the inbox (NOTIFICATION_RETENTION_DAYS). */
export const NotificationsPurgedData = z.object({
  before: z.string(),
  purgedAt: instant,
});
export type NotificationsPurgedData = z.infer<typeof NotificationsPurgedData>;

export const NOTIFICATION_EVENTS = {
  NotificationRead: NotificationReadData,
  AllNotificationsRead: AllNotificationsReadData,
  NotificationDeleted: NotificationDeletedData,
  NotificationsPurged: NotificationsPurgedData,
};
export type InboxEvent = EventsOf<typeof NOTIFICATION_EVENTS>;
