import type { OrderStatus } from '../order/events.js';
import { CONFIRMED_ONWARD, DRIVER_ASSIGNED } from '../order/rules.js';

/** Who may talk in which room of an order, and when (docs/domain-rules.md, chat and support). */

export const ROOM_TYPES = ['ORDER_CLIENT_DRIVER', 'ORDER_ADMIN_SUPPORT', 'ORDER_ADMIN_CLIENT_SUPPORT'] as const;
export type RoomType = (typeof ROOM_TYPES)[number];

export type SupportKind = 'driver' | 'client';
export const SUPPORT_TYPE_OF_KIND: Record<SupportKind, RoomType> = {
  driver: 'ORDER_ADMIN_SUPPORT',
  client: 'ORDER_ADMIN_CLIENT_SUPPORT',
};

export const isSupportRoom = (type: string): boolean =>
  type === 'ORDER_ADMIN_SUPPORT' || type === 'ORDER_ADMIN_CLIENT_SUPPORT';

export const supportKindOf = (type: string): SupportKind => (type === 'ORDER_ADMIN_SUPPORT' ? 'driver' : 'client');

/** Client and driver talk once the order is confirmed, through its delivery. */
export const CLIENT_DRIVER_WINDOW = CONFIRMED_ONWARD;
/** Support talks about an order while a driver is assigned and it is not over. */
export const SUPPORT_WINDOW = DRIVER_ASSIGNED;

/** Whether messages may be sent in a room of this type while the order has this status. */
export const isWithinWindow = (type: string, status: string): boolean =>
  (isSupportRoom(type) ? SUPPORT_WINDOW : CLIENT_DRIVER_WINDOW).includes(status as OrderStatus);

export interface ChatParticipant {
  id: number;
  role: 'CLIENT' | 'DRIVER' | 'ADMIN';
  /** The driver profile id of a DRIVER. */
  driverId?: number | null;
}

export interface OrderParties {
  client_id: number;
  /** The assigned driver's profile id (order events carry the profile, not the user). */
  driver_id: number | null;
}

/**
 * App-user membership: the client-driver room is the order's client and its assigned driver; the driver's
 * support room is the assigned driver only; the client's support room is the client only. Admins are never
 * app members (they reach support rooms through the back office).
 */
export const isAppMember = (type: string, order: OrderParties, who: ChatParticipant): boolean => {
  const isClient = who.role === 'CLIENT' && order.client_id === who.id;
  const isDriver = who.role === 'DRIVER' && order.driver_id !== null && order.driver_id === who.driverId;
  switch (type) {
    case 'ORDER_CLIENT_DRIVER':
      return isClient || isDriver;
    case 'ORDER_ADMIN_SUPPORT':
      return isDriver;
    case 'ORDER_ADMIN_CLIENT_SUPPORT':
      return isClient;
    default:
      return false;
  }
};

export interface SupportClaim {
  support_state: string | null;
  assigned_admin_id: number | null;
  claimed_at: Date | null;
}

export const isClaimedByOther = (room: SupportClaim, adminId: number): boolean =>
  room.support_state === 'claimed' && room.assigned_admin_id !== adminId;

/**
 * Another admin holds the room. If they claimed it within the race window before now, both admins were
 * acting on the same view of the pool and the caller lost the race for it (409); a claim older than that
 * means the room was simply someone else's (403).
 */
export const claimConflictOf = (
  room: SupportClaim,
  adminId: number,
  now: Date,
  raceWindowMs: number,
): 'lost_race' | 'claimed_by_other' | null => {
  if (!isClaimedByOther(room, adminId)) return null;
  return room.claimed_at && room.claimed_at.getTime() > now.getTime() - raceWindowMs ? 'lost_race' : 'claimed_by_other';
};

export const channelOfRoom = (roomId: number): string => `chat.rooms.${roomId}`;

const CHANNEL = /^chat\.rooms\.([1-9][0-9]{0,14})$/;

/** The room id a channel names, or null. */
export const roomIdOfChannel = (channel: string): number | null => {
  const m = CHANNEL.exec(channel);
  return m ? Number(m[1]) : null;
};
