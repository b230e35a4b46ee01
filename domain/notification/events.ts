import type { DomainEvent } from '../decider.js';

/**
 * What a user does to their inbox, recorded as events so that the inbox read model stays a pure projection
 * of the log (a rebuild gives back the same read markers and deletions). One stream per user; retention
 * purges go to one stream of their own.
 */
export const inboxStream = (userId: number): string => `notification-inbox-${userId}`;
export const RETENTION_STREAM = 'notification-retention';

export interface NotificationReadData {
  userId: number;
  notificationId: string;
  readAt: string;
}

/** Marks every entry the user had when this event was recorded; later ones stay unread. */
export interface AllNotificationsReadData {
  userId: number;
  readAt: string;
}

export interface NotificationDeletedData {
  userId: number;
  notificationId: string;
  deletedAt: string;
}

/** Entries created before `before` leave the inbox (NOTIFICATION_RETENTION_DAYS). */
export interface NotificationsPurgedData {
  before: string;
  purgedAt: string;
}

export type NotificationRead = DomainEvent<'NotificationRead', NotificationReadData>;
export type AllNotificationsRead = DomainEvent<'AllNotificationsRead', AllNotificationsReadData>;
export type NotificationDeleted = DomainEvent<'NotificationDeleted', NotificationDeletedData>;
export type NotificationsPurged = DomainEvent<'NotificationsPurged', NotificationsPurgedData>;
export type InboxEvent = NotificationRead | AllNotificationsRead | NotificationDeleted | NotificationsPurged;
