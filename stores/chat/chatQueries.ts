import type { Selectable } from 'kysely';
import type { Db } from '../../infra/db/database.js';
import type { ChatMessageRow, ChatRoomRow } from './chatTables.js';

export type ChatRoom = Selectable<ChatRoomRow>;
export type ChatMessage = Selectable<ChatMessageRow>;

/** A room read answers its last 50 messages (docs/domain-rules.md, limits). */
export const CHAT_HISTORY_LIMIT = 50;

export interface MessageView {
  id: number;
  order_id: number;
  sender_id: number;
  sender_role: string;
  sender_name: string | null;
  content: string;
  type: string;
  created_at: string;
}

export interface SupportStatusView {
  state: 'pool' | 'claimed';
  assigned_admin: { id: number; name: string } | null;
}

export const toMessageView = (m: ChatMessage): MessageView => ({
  id: m.id,
  order_id: m.order_id,
  sender_id: m.sender_id,
  sender_role: m.sender_role,
  sender_name: m.sender_name,
  content: m.content,
  type: m.type,
  created_at: new Date(m.created_at).toISOString(),
});

export const toSupportStatus = (room: ChatRoom): SupportStatusView =>
  room.support_state === 'claimed' && room.assigned_admin_id !== null
    ? { state: 'claimed', assigned_admin: { id: room.assigned_admin_id, name: room.assigned_admin_name ?? '' } }
    : { state: 'pool', assigned_admin: null };

export const findRoom = async (db: Db, roomId: number): Promise<ChatRoom | null> =>
  (await db.selectFrom('chat_rooms').selectAll().where('id', '=', roomId).executeTakeFirst()) ?? null;

export const findRoomOfOrder = async (db: Db, orderId: number, type: string): Promise<ChatRoom | null> =>
  (await db
    .selectFrom('chat_rooms')
    .selectAll()
    .where('order_id', '=', orderId)
    .where('type', '=', type)
    .executeTakeFirst()) ?? null;

/** The room's last messages, oldest first. */
export const lastMessages = async (db: Db, roomId: number, limit = CHAT_HISTORY_LIMIT): Promise<MessageView[]> => {
  const rows = await db
    .selectFrom('chat_messages')
    .selectAll()
    .where('room_id', '=', roomId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.reverse().map(toMessageView);
};
