import { sql, type Generated, type Kysely, type Migration } from 'kysely';

/**
 * Chat rooms and messages are state-stored (docs/decisions/0019-chat-and-support.md): written by the chat commands,
 * not projected from events. A room is unique per (order, type), so resolving it is idempotent even when
 * two requests race. Support rooms carry their claim (`support_state`, `assigned_admin_*`), changed only by
 * conditional UPDATEs so that two admins racing for one room get one winner.
 */
export interface ChatRoomRow {
  id: Generated<number>;
  order_id: number;
  type: string;
  /** 'pool' or 'claimed' for support rooms; null for the client-driver room. */
  support_state: string | null;
  assigned_admin_id: number | null;
  /** The admin's name when they claimed the room, like a message's sender_name. */
  assigned_admin_name: string | null;
  claimed_at: Date | null;
  last_message_id: number | null;
  /** The newest message's time, or the room's creation: the support inbox's order and cursor. */
  activity_at: Date;
  created_at: Date;
}

export interface ChatMessageRow {
  id: Generated<number>;
  room_id: number;
  order_id: number;
  sender_id: number;
  sender_role: string;
  sender_name: string | null;
  content: string;
  type: Generated<string>;
  created_at: Date;
}

/** Read markers: admin and app-user ids are separate id spaces, so the role is part of the key. */
export interface ChatReadRow {
  room_id: number;
  reader_role: string;
  reader_id: number;
  read_at: Date;
}

declare module '../../infra/db/database.js' {
  interface Database {
    chat_rooms: ChatRoomRow;
    chat_messages: ChatMessageRow;
    chat_reads: ChatReadRow;
  }
}

export const chatMigrations: Record<string, Migration> = {
  '0700_chat': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE chat_rooms (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        order_id bigint NOT NULL,
        type text NOT NULL,
        support_state text,
        assigned_admin_id bigint,
        assigned_admin_name text,
        claimed_at timestamptz,
        last_message_id bigint,
        activity_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        UNIQUE (order_id, type)
      )`.execute(db);
      await sql`CREATE INDEX chat_rooms_support_pool ON chat_rooms (activity_at DESC, id DESC)
        WHERE support_state = 'pool'`.execute(db);
      await sql`CREATE INDEX chat_rooms_support_mine ON chat_rooms (assigned_admin_id, activity_at DESC, id DESC)
        WHERE support_state = 'claimed'`.execute(db);
      await sql`CREATE TABLE chat_messages (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        room_id bigint NOT NULL,
        order_id bigint NOT NULL,
        sender_id bigint NOT NULL,
        sender_role text NOT NULL,
        sender_name text,
        content text NOT NULL,
        type text NOT NULL DEFAULT 'TEXT',
        created_at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX chat_messages_room ON chat_messages (room_id, id DESC)`.execute(db);
      await sql`CREATE TABLE chat_reads (
        room_id bigint NOT NULL,
        reader_role text NOT NULL,
        reader_id bigint NOT NULL,
        read_at timestamptz NOT NULL,
        PRIMARY KEY (room_id, reader_role, reader_id)
      )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE chat_reads, chat_messages, chat_rooms`.execute(db);
    },
  },
};
