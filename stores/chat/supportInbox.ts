import {
  channelOfRoom,
  SUPPORT_TYPE_OF_KIND,
  SUPPORT_WINDOW,
  supportKindOf,
  type SupportKind,
} from '../../domain/chat/rules.js';
import { toSupportStatus, type ChatRoom } from './chatQueries.js';
import type { Db } from '../../infra/db/database.js';
import { newestFirstPage } from '../../infra/db/keyset.js';

export interface InboxItem {
  order_id: number;
  room_id: number;
  kind: SupportKind;
  channel: string;
  state: 'pool' | 'claimed';
  assigned_admin: { id: number; name: string } | null;
  last_message: { sender_role: string; sender_name: string | null; content: string; created_at: string } | null;
}

export interface InboxFilter {
  bucket: 'pool' | 'mine';
  adminId: number;
  kind?: SupportKind;
  limit: number;
  after?: { at: Date; id: number };
}

/**
 * The support inbox, newest activity first, keyset on (activity_at, id). The pool lists only rooms whose
 * order is still active (a pooled room of a finished order can no longer be claimed); "mine" lists every
 * room the admin holds, so they can still release it.
 */
export const supportInbox = async (
  db: Db,
  f: InboxFilter,
): Promise<{ items: InboxItem[]; hasMore: boolean; last: ChatRoom | null }> => {
  let q = db.selectFrom('chat_rooms as r').selectAll('r');
  q =
    f.bucket === 'pool'
      ? q
          .where('r.support_state', '=', 'pool')
          .where(({ exists, selectFrom }) =>
            exists(
              selectFrom('order_views as o')
                .select('o.id')
                .whereRef('o.id', '=', 'r.order_id')
                .where('o.status', 'in', SUPPORT_WINDOW),
            ),
          )
      : q.where('r.support_state', '=', 'claimed').where('r.assigned_admin_id', '=', f.adminId);
  if (f.kind) q = q.where('r.type', '=', SUPPORT_TYPE_OF_KIND[f.kind]);
  const { rows: page, hasMore } = await newestFirstPage(
    q,
    ['r.activity_at', 'r.id'],
    f.after && [f.after.at, f.after.id],
    f.limit,
  );
  const lastIds = page.map((r) => r.last_message_id).filter((id): id is number => id !== null);
  const messages = lastIds.length
    ? await db.selectFrom('chat_messages').selectAll().where('id', 'in', lastIds).execute()
    : [];
  const byId = new Map(messages.map((m) => [m.id, m]));
  const items = page.map((r): InboxItem => {
    const m = r.last_message_id !== null ? byId.get(r.last_message_id) : undefined;
    const status = toSupportStatus(r);
    return {
      order_id: r.order_id,
      room_id: r.id,
      kind: supportKindOf(r.type),
      channel: channelOfRoom(r.id),
      state: status.state,
      assigned_admin: status.assigned_admin,
      last_message: m
        ? {
            sender_role: m.sender_role,
            sender_name: m.sender_name,
            content: m.content,
            created_at: new Date(m.created_at).toISOString(),
          }
        : null,
    };
  });
  return { items, hasMore, last: page[page.length - 1] ?? null };
};
