import { PathId } from '../route.js';
import { z } from 'zod';
import '../openapi.js';
import { ROOM_TYPES } from '../../domain/chat/rules.js';
import { notFound } from '../../domain/errors.js';
import { idFrom } from '../orders/schemas.js';

/** Path ids are checked by idFrom (a malformed id names no room: 404); the schemas only document them. */
export const RoomParams = z.object({ roomId: PathId });
export const OrderParams = z.object({ orderId: PathId });

export const roomIdFrom = (params: { roomId: string }, errorCode: 'ChatError' | 'SupportError'): number =>
  idFrom(params.roomId, () =>
    notFound(errorCode, errorCode === 'ChatError' ? 'Chat room not found.' : 'Support room not found.'),
  );

/** 1-500 characters (docs/domain-rules.md, limits); a message of only blanks says nothing and is refused too. */
export const MessageContent = z
  .string()
  .min(1, 'must be 1-500 characters')
  .max(500, 'must be 1-500 characters')
  .refine((s) => s.trim().length > 0, 'must not be blank');

export const SendBody = z.object({ content: MessageContent });

export const RoomType = z.enum(ROOM_TYPES);

export const MessageSchema = z
  .object({
    id: z.number().int(),
    order_id: z.number().int(),
    sender_id: z.number().int(),
    sender_role: z.enum(['CLIENT', 'DRIVER', 'ADMIN']),
    sender_name: z.string().nullable(),
    content: z.string(),
    type: z.literal('TEXT'),
    created_at: z.string(),
  })
  .openapi('ChatMessage');

export const SupportStatusSchema = z
  .object({
    state: z.enum(['pool', 'claimed']),
    assigned_admin: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  })
  .openapi('SupportRoomStatus');

export const RoomSchema = z
  .object({
    id: z.number().int(),
    type: RoomType,
    channel: z.string().openapi({ description: 'Real-time channel (chat.rooms.<room_id>): subscribe to it on /ws.' }),
    messages: z.array(MessageSchema),
    status: SupportStatusSchema.optional().openapi({ description: 'Support rooms only.' }),
  })
  .openapi('ChatRoom');

export const ReadMarkerSchema = z.object({ read_at: z.string() });
