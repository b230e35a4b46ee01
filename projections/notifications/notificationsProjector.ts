import { sql, type Kysely, type Migration } from 'kysely';
import type { Trx } from '../../infra/db/database.js';
import type { BusMessage } from '../../infra/bus/port.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import { projector, type AnyRecordedEvent, type BatchMemory, type EventHandler } from '../projector.js';
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
import { InboxBatch } from './inboxBatch.js';
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

/** A rule's draft as the row it becomes: its id follows from the event, the user and the type. */
const rowOf = (e: E, d: NotificationDraft): NotificationRow | null => {
  const userId = idOf(d.userId);
  if (userId === null || !d.type) return null;
  return {
    id: notificationIdFor(e.eventId, userId, d.type),
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
  };
};

/** Rows per INSERT: 11 parameters each, well inside PostgreSQL's 65 535. */
const ROWS_PER_INSERT = 2000;

/**
 * Writes the inbox rows drafted so far in one multi-row statement (per ROWS_PER_INSERT), and announces
 * those whose event is live, in log order. The rows as drafted go out on the bus once the batch commits:
 * nothing reads them back. A batch commits once (its checkpoint must move from where the runner left it),
 * so every row it drafts is new; an id already there (a rebuild's replay) is left as it is.
 */
const insertRows = async (trx: Trx, rows: Map<string, NotificationRow>, emit: Emit) => {
  const all = [...rows.values()];
  rows.clear();
  for (let i = 0; i < all.length; i += ROWS_PER_INSERT) {
    const chunk = all.slice(i, i + ROWS_PER_INSERT);
    await trx
      .insertInto('notifications')
      .values(chunk)
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    for (const r of chunk)
      if (Date.now() - r.created_at.getTime() <= FANOUT_MAX_AGE_MS)
        emit({ subject: channelOf(r.user_id), data: { event: 'notification.created', data: toNotificationView(r) } });
  }
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

const eventTypes = new Set([...Object.keys(notificationRules), ...Object.keys(notificationTrackers)]);

/**
 * A batch set-based: the look-ups of its rules in two statements (InboxBatch), its inbox rows in one
 * insert, its trackers' rows in one upsert per table. An inbox change (read, delete, purge) sees the rows
 * drafted before it: they are written first.
 */
const applyInboxBatch = async (trx: Trx, events: RecordedEvent[], emit: Emit, memory?: BatchMemory): Promise<void> => {
  const batch = await InboxBatch.load(trx, events, memory);
  const rows = new Map<string, NotificationRow>();
  for (const e of events) {
    const inbox = inboxHandlers[e.type];
    if (inbox) {
      await insertRows(trx, rows, emit);
      await inbox(trx, e, emit);
      continue;
    }
    for (const track of notificationTrackers[e.type] ?? []) track(batch, e);
    for (const rule of notificationRules[e.type] ?? [])
      for (const draft of rule(e, { batch })) {
        const row = rowOf(e, draft);
        if (row) rows.set(row.id, row);
      }
  }
  await insertRows(trx, rows, emit);
  await batch.write(trx);
  if (memory) batch.remember(memory);
};

/** One event alone is a batch of one. */
const oneEvent: EventHandler = (trx, e, emit) => applyInboxBatch(trx, [e], emit);

export const notificationsProjector = projector('notifications', {
  // A fan-out, kept off the write path: writes never wait for it; the inbox routes wait for it at read time.
  settledOnRead: true,
  tables: ['notifications', ...notificationTrackerTables],
  handlers: Object.fromEntries([...eventTypes, ...Object.keys(inboxHandlers)].map((t) => [t, oneEvent])),
  applyBatch: applyInboxBatch,
});
