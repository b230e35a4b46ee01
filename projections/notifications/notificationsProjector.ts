import { sql, type Kysely, type Migration } from 'kysely';
import type { Trx } from '../../infra/db/database.js';
import type { BusMessage } from '../../infra/bus/port.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import { projector, type EventHandler, type AnyRecordedEvent } from '../projector.js';
import type {
  AllNotificationsReadData,
  NotificationDeletedData,
  NotificationReadData,
  NotificationsPurgedData,
} from '../../domain/notification/events.js';
import { notificationIdFor } from './notificationId.js';
import { notificationRules, notificationTrackerTables, notificationTrackers } from './notificationRules.js';
import { toNotificationView } from './notificationView.js';
import { driverUsersMigrations } from './driverUsers.js';
import { orderPartiesMigrations } from './orderParties.js';
import { idOf, NOTIFICATION_PRIORITIES, type NotificationDraft } from './ruleTypes.js';

export interface NotificationRow {
  id: string;
  user_id: number;
  type: string;
  title: string;
  body: string;
  priority: string;
  data: unknown;
  /** The event that caused it. */
  event_id: string;
  /** The causing event's global position: the inbox's order (newest first) and its cursor. */
  position: number;
  read_at: Date | null;
  created_at: Date;
}

declare module '../../infra/db/database.js' {
  interface Database {
    notifications: NotificationRow;
  }
}

export const notificationMigrations: Record<string, Migration> = {
  '0600_notifications': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE notifications (
        id uuid PRIMARY KEY,
        user_id bigint NOT NULL,
        type text NOT NULL,
        title text NOT NULL,
        body text NOT NULL,
        priority text NOT NULL,
        data jsonb NOT NULL DEFAULT '{}'::jsonb,
        event_id text NOT NULL,
        position bigint NOT NULL,
        read_at timestamptz,
        created_at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX notifications_user_position ON notifications (user_id, position DESC, id DESC)`.execute(
        db,
      );
      await sql`CREATE INDEX notifications_user_unread ON notifications (user_id) WHERE read_at IS NULL`.execute(db);
      await sql`CREATE INDEX notifications_event ON notifications (event_id)`.execute(db);
      await sql`CREATE INDEX notifications_created ON notifications (created_at)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE notifications`.execute(db);
    },
  },
  ...orderPartiesMigrations,
  ...driverUsersMigrations,
};

/**
 * Fan-out is for live users: when the projector catches up on old events (first deployment, a new
 * instance on an old checkpoint) it must not push yesterday's offers to phones again.
 */
const FANOUT_MAX_AGE_MS = 15 * 60_000;

type E = AnyRecordedEvent;
type Emit = (message: BusMessage) => void;

const channelOf = (userId: number | string) => `notifications.${userId}`;

/** Only what happens now reaches devices (ws gateway, push gateway on `notifications.<userId>`). */
const live = (e: E) => Date.now() - new Date(e.recordedAt).getTime() <= FANOUT_MAX_AGE_MS;

const insertDrafts = async (trx: Trx, e: E, drafts: NotificationDraft[], emit: Emit) => {
  const rows = new Map<string, NotificationRow>();
  for (const d of drafts) {
    const userId = idOf(d.userId);
    if (userId === null || !d.type) continue;
    const id = notificationIdFor(e.eventId, userId, d.type);
    rows.set(id, {
      id,
      user_id: userId,
      type: d.type,
      title: d.title,
      body: d.body,
      priority: d.priority && NOTIFICATION_PRIORITIES.includes(d.priority) ? d.priority : 'normal',
      data: JSON.stringify(d.data ?? {}),
      event_id: e.eventId,
      position: e.globalPosition,
      read_at: null,
      created_at: new Date(e.recordedAt),
    });
  }
  if (rows.size === 0) return;
  // The rows as inserted go out on the bus: nothing reads them back (a batch applied again inserts, and so
  // announces, nothing).
  const inserted = await trx
    .insertInto('notifications')
    .values([...rows.values()])
    .onConflict((oc) => oc.column('id').doNothing())
    .returningAll()
    .execute();
  if (!live(e)) return;
  for (const r of inserted)
    emit({ subject: channelOf(r.user_id), data: { event: 'notification.created', data: toNotificationView(r) } });
};

const inboxHandlers: Record<string, EventHandler> = {
  NotificationRead: async (trx, e: RecordedEvent<string, NotificationReadData>, emit) => {
    const read = await trx
      .updateTable('notifications')
      .set({ read_at: new Date(e.data.readAt) })
      .where('id', '=', e.data.notificationId)
      .where('user_id', '=', e.data.userId)
      .where('read_at', 'is', null)
      .returning(['id', 'read_at'])
      .executeTakeFirst();
    if (read?.read_at && live(e))
      emit({
        subject: channelOf(e.data.userId),
        data: { event: 'notification.read', data: { id: read.id, read_at: new Date(read.read_at).toISOString() } },
      });
  },
  AllNotificationsRead: async (trx, e: RecordedEvent<string, AllNotificationsReadData>, emit) => {
    await trx
      .updateTable('notifications')
      .set({ read_at: new Date(e.data.readAt) })
      .where('user_id', '=', e.data.userId)
      .where('read_at', 'is', null)
      .execute();
    if (live(e))
      emit({
        subject: channelOf(e.data.userId),
        data: { event: 'notifications.read_all', data: { read_at: new Date(e.data.readAt).toISOString() } },
      });
  },
  NotificationDeleted: async (trx, e: RecordedEvent<string, NotificationDeletedData>, emit) => {
    await trx
      .deleteFrom('notifications')
      .where('id', '=', e.data.notificationId)
      .where('user_id', '=', e.data.userId)
      .execute();
    if (live(e))
      emit({
        subject: channelOf(e.data.userId),
        data: { event: 'notification.deleted', data: { id: e.data.notificationId } },
      });
  },
  NotificationsPurged: async (trx, e: RecordedEvent<string, NotificationsPurgedData>) =>
    trx.deleteFrom('notifications').where('created_at', '<', new Date(e.data.before)).execute(),
};

const ruleHandler =
  (type: string): EventHandler =>
  async (trx, e, emit) => {
    for (const track of notificationTrackers[type] ?? []) await track(trx, e);
    const drafts: NotificationDraft[] = [];
    for (const rule of notificationRules[type] ?? []) drafts.push(...(await rule(e, { trx })));
    await insertDrafts(trx, e, drafts, emit);
  };

const eventTypes = new Set([...Object.keys(notificationRules), ...Object.keys(notificationTrackers)]);

export const notificationsProjector = projector('notifications', {
  // A fan-out, kept off the write path: writes never wait for it; the inbox routes wait for it at read time.
  settledOnRead: true,
  tables: ['notifications', ...notificationTrackerTables],
  handlers: { ...Object.fromEntries([...eventTypes].map((t) => [t, ruleHandler(t)])), ...inboxHandlers },
});
