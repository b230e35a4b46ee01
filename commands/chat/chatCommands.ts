import { sql } from 'kysely';
import type { Actor } from '../../domain/actor.js';
import { badRequest, conflict, forbidden, notFound } from '../../domain/errors.js';
import {
  findRoom,
  findRoomOfOrder,
  lastMessages,
  toMessageView,
  toSupportStatus,
  type ChatRoom,
  type MessageView,
  type SupportStatusView,
} from '../../stores/chat/chatQueries.js';
import type { CommandDeps } from '../deps.js';
import type { Db, Trx } from '../../infra/db/database.js';
import {
  channelOfRoom,
  claimConflictOf,
  isAppMember,
  isClaimedByOther,
  isSupportRoom,
  isWithinWindow,
  type RoomType,
} from '../../domain/chat/rules.js';

/**
 * Chat and support commands. Rooms and messages are
 * state-stored; after a write commits, what sockets need is published on `chat.rooms.<roomId>` as
 * `{event, data}`: `message.created` (the message), `room.claimed` and `room.released` (the room's status).
 * Publishing is after commit and at most once, like the projectors' (a lost real-time frame, never a lost
 * message: the history is in the table).
 */
export type ChatDeps = Pick<CommandDeps, 'db' | 'reference' | 'bus' | 'clock' | 'logger' | 'config'>;

const chatNotFound = (what = 'Chat room not found.') => notFound('ChatError', what);
const notAMember = () => forbidden('ChatError', 'You are not a member of this chat.');
const supportNotFound = () => notFound('SupportError', 'Support room not found.');

const publish = async (deps: ChatDeps, roomId: number, event: string, data: unknown) => {
  try {
    await deps.bus.publish(channelOfRoom(roomId), { event, data });
  } catch (err) {
    deps.logger.warn({ err, roomId, event }, 'chat event not published');
  }
};

const statusEvent = (room: ChatRoom) => ({ room_id: room.id, order_id: room.order_id, status: toSupportStatus(room) });

const insertMessage = async (
  trx: Trx,
  room: ChatRoom,
  sender: Actor,
  content: string,
  now: Date,
): Promise<MessageView> => {
  const m = await trx
    .insertInto('chat_messages')
    .values({
      room_id: room.id,
      order_id: room.order_id,
      sender_id: sender.id,
      sender_role: sender.role,
      sender_name: sender.name ?? null,
      content,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  // Concurrent senders may commit out of id order: the room keeps the newest of them.
  await trx
    .updateTable('chat_rooms')
    .set({
      last_message_id: sql`greatest(coalesce(last_message_id, 0), ${m.id})`,
      activity_at: sql`greatest(activity_at, ${now})`,
    })
    .where('id', '=', room.id)
    .execute();
  return toMessageView(m);
};

const markReadFor = async (db: Db, roomId: number, reader: Actor, now: Date): Promise<{ read_at: string }> => {
  await db
    .insertInto('chat_reads')
    .values({ room_id: roomId, reader_role: reader.role, reader_id: reader.id, read_at: now })
    .onConflict((oc) => oc.columns(['room_id', 'reader_role', 'reader_id']).doUpdateSet({ read_at: now }))
    .execute();
  return { read_at: now.toISOString() };
};

// ---- App users (CLIENT, DRIVER) ----

export interface RoomView {
  id: number;
  type: string;
  channel: string;
  messages: MessageView[];
  status?: SupportStatusView;
}

const roomView = async (db: Db, room: ChatRoom): Promise<RoomView> => ({
  id: room.id,
  type: room.type,
  channel: channelOfRoom(room.id),
  messages: await lastMessages(db, room.id),
  ...(isSupportRoom(room.type) ? { status: toSupportStatus(room) } : {}),
});

/** Finds the order's room of this type, creating it when the order is inside the room's window. */
export const resolveRoom = async (deps: ChatDeps, actor: Actor, orderId: number, type: RoomType): Promise<RoomView> => {
  const order = await deps.reference.order(orderId);
  if (!order) throw chatNotFound('Order not found.');
  if (!isAppMember(type, order, actor))
    throw forbidden(
      'ChatError',
      'You may not open this chat: not a member of it, or the wrong role for this room type.',
    );
  const existing = await findRoomOfOrder(deps.db, orderId, type);
  if (existing) return roomView(deps.db, existing);
  if (!isWithinWindow(type, order.status)) {
    throw badRequest(
      'ChatError',
      isSupportRoom(type)
        ? 'Support is available while the order is active.'
        : 'The client-driver chat opens once the order is paid.',
    );
  }
  const now = deps.clock.now();
  // Two concurrent resolves insert once; the other finds the winner's row.
  await deps.db
    .insertInto('chat_rooms')
    .values({
      order_id: orderId,
      type,
      support_state: isSupportRoom(type) ? 'pool' : null,
      activity_at: now,
      created_at: now,
    })
    .onConflict((oc) => oc.columns(['order_id', 'type']).doNothing())
    .execute();
  const room = await findRoomOfOrder(deps.db, orderId, type);
  if (!room) throw new Error(`chat room of order ${orderId} (${type}) vanished after insert`);
  return roomView(deps.db, room);
};

const memberRoom = async (deps: ChatDeps, actor: Actor, roomId: number) => {
  const room = await findRoom(deps.db, roomId);
  if (!room) throw chatNotFound();
  const order = await deps.reference.order(room.order_id);
  if (!order) throw chatNotFound();
  if (!isAppMember(room.type, order, actor)) throw notAMember();
  return { room, order };
};

export const listMessages = async (deps: ChatDeps, actor: Actor, roomId: number) => {
  const { room } = await memberRoom(deps, actor, roomId);
  return { channel: channelOfRoom(room.id), messages: await lastMessages(deps.db, room.id) };
};

export const sendMessage = async (deps: ChatDeps, actor: Actor, roomId: number, content: string) => {
  const { room, order } = await memberRoom(deps, actor, roomId);
  if (!isWithinWindow(room.type, order.status)) {
    throw badRequest(
      'ChatError',
      isSupportRoom(room.type)
        ? 'The order is no longer active: support is closed.'
        : 'The order is not paid: the chat is not open.',
    );
  }
  const message = await deps.db
    .transaction()
    .execute((trx) => insertMessage(trx, room, actor, content, deps.clock.now()));
  await publish(deps, room.id, 'message.created', message);
  return { message, channel: channelOfRoom(room.id) };
};

export const markRoomRead = async (deps: ChatDeps, actor: Actor, roomId: number) => {
  const { room } = await memberRoom(deps, actor, roomId);
  return markReadFor(deps.db, room.id, actor, deps.clock.now());
};

/** Whether an app user may listen on a room's channel: the same membership as the REST routes. */
export const mayAppUserListen = async (
  deps: Pick<ChatDeps, 'db' | 'reference'>,
  actor: Actor,
  roomId: number,
): Promise<boolean> => {
  const room = await findRoom(deps.db, roomId);
  if (!room) return false;
  const order = await deps.reference.order(room.order_id);
  return order !== null && isAppMember(room.type, order, actor);
};

// ---- Admins (support rooms) ----

const supportRoom = async (db: Db, roomId: number): Promise<ChatRoom> => {
  const room = await findRoom(db, roomId);
  if (!room || !isSupportRoom(room.type)) throw supportNotFound();
  return room;
};

const notYours = () => forbidden('SupportError', 'This room is claimed by another admin.');
const lostRace = () => conflict('SupportError', 'Another admin claimed this room first.');

/** An admin may listen on a pooled support room, or on one they hold. */
export const mayAdminListen = async (db: Db, admin: Actor, roomId: number): Promise<boolean> => {
  const room = await findRoom(db, roomId);
  return room !== null && isSupportRoom(room.type) && !isClaimedByOther(room, admin.id);
};

export const readSupportRoom = async (deps: ChatDeps, admin: Actor, roomId: number) => {
  const room = await supportRoom(deps.db, roomId);
  if (isClaimedByOther(room, admin.id)) throw notYours();
  return { room, messages: await lastMessages(deps.db, room.id) };
};

/** Checks that happen before claiming: the room exists, nobody else holds it, and its order is active. */
const claimable = async (deps: ChatDeps, admin: Actor, roomId: number) => {
  const room = await supportRoom(deps.db, roomId);
  const conflictWith = claimConflictOf(room, admin.id, deps.clock.now(), deps.config.SUPPORT_CLAIM_RACE_SECONDS * 1000);
  if (conflictWith === 'claimed_by_other') throw notYours();
  if (conflictWith === 'lost_race') throw lostRace();
  const order = await deps.reference.order(room.order_id);
  if (!order || !isWithinWindow(room.type, order.status)) throw badRequest('SupportError', 'The order is not active.');
};

/**
 * Claims the room for the admin, or confirms they hold it (the row stays locked until the transaction
 * ends, so a concurrent release cannot slip in before a message is stored). The pool→claimed UPDATE is
 * conditional: of two admins racing, the second finds the room claimed and gets 409.
 */
const claimWithin = async (
  trx: Trx,
  roomId: number,
  admin: Actor,
  now: Date,
): Promise<{ room: ChatRoom; claimedNow: boolean }> => {
  const claimed = await trx
    .updateTable('chat_rooms')
    .set({
      support_state: 'claimed',
      assigned_admin_id: admin.id,
      assigned_admin_name: admin.name ?? null,
      claimed_at: now,
    })
    .where('id', '=', roomId)
    .where('support_state', '=', 'pool')
    .returningAll()
    .executeTakeFirst();
  if (claimed) return { room: claimed, claimedNow: true };
  const held = await trx.selectFrom('chat_rooms').selectAll().where('id', '=', roomId).forUpdate().executeTakeFirst();
  // It was in the pool or ours when this request looked (claimable): someone changed that since.
  if (!held || held.support_state !== 'claimed' || held.assigned_admin_id !== admin.id) throw lostRace();
  return { room: held, claimedNow: false };
};

export const claimRoom = async (deps: ChatDeps, admin: Actor, roomId: number) => {
  await claimable(deps, admin, roomId);
  const { room, claimedNow } = await deps.db
    .transaction()
    .execute((trx) => claimWithin(trx, roomId, admin, deps.clock.now()));
  if (claimedNow) await publish(deps, room.id, 'room.claimed', statusEvent(room));
  return { status: toSupportStatus(room) };
};

export const sendSupportMessage = async (deps: ChatDeps, admin: Actor, roomId: number, content: string) => {
  await claimable(deps, admin, roomId);
  const now = deps.clock.now();
  const { room, claimedNow, message } = await deps.db.transaction().execute(async (trx) => {
    const held = await claimWithin(trx, roomId, admin, now);
    return { ...held, message: await insertMessage(trx, held.room, admin, content, now) };
  });
  if (claimedNow) await publish(deps, room.id, 'room.claimed', statusEvent(room));
  await publish(deps, room.id, 'message.created', message);
  return { message, channel: channelOfRoom(room.id), status: toSupportStatus(room) };
};

export const releaseRoom = async (deps: ChatDeps, admin: Actor, roomId: number) => {
  await supportRoom(deps.db, roomId);
  const released = await deps.db
    .updateTable('chat_rooms')
    .set({ support_state: 'pool', assigned_admin_id: null, assigned_admin_name: null, claimed_at: null })
    .where('id', '=', roomId)
    .where('support_state', '=', 'claimed')
    .where('assigned_admin_id', '=', admin.id)
    .returningAll()
    .executeTakeFirst();
  if (!released) {
    const room = await supportRoom(deps.db, roomId);
    if (room.support_state !== 'claimed') throw conflict('SupportError', 'The room is not claimed.');
    throw forbidden('SupportError', 'Only the assigned admin may release this room.');
  }
  await publish(deps, released.id, 'room.released', statusEvent(released));
  return { status: toSupportStatus(released) };
};

export const markSupportRoomRead = async (deps: ChatDeps, admin: Actor, roomId: number) => {
  const room = await supportRoom(deps.db, roomId);
  if (room.support_state !== 'claimed' || room.assigned_admin_id !== admin.id)
    throw forbidden('SupportError', 'Only the assigned admin may mark this room read.');
  return markReadFor(deps.db, room.id, admin, deps.clock.now());
};
