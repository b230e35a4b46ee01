import { mayAdminListen, mayAppUserListen } from '../../commands/chat/chatCommands.js';
import { roomIdOfChannel } from '../../domain/chat/rules.js';
import { chatMigrations } from '../../stores/chat/chatTables.js';
import type { AppModule } from '../context.js';
import { channelsOf } from '../../infra/ws/channels.js';
import { supportRoutes } from '../../api/admin/support/routes.js';
import { chatRoutes } from '../../api/chat/routes.js';

/** In-order chat, the support inbox and their channels `chat.rooms.<roomId>`. */
export const chatModule: AppModule = {
  name: 'chat',
  migrations: chatMigrations,
  init(ctx) {
    // The members of the room, as on the REST routes: its client and/or assigned driver; for support
    // rooms also an admin while the room is pooled, and only the assigned admin once it is claimed: a claim
    // ends the other admins' subscriptions (recheckOn).
    channelsOf(ctx).register(
      'chat.rooms.',
      async (actor, channel) => {
        const roomId = roomIdOfChannel(channel);
        if (roomId === null) return false;
        return actor.role === 'ADMIN' ? mayAdminListen(ctx.db, actor, roomId) : mayAppUserListen(ctx, actor, roomId);
      },
      { recheckOn: ['room.claimed'] },
    );
  },
  routes(ctx, router) {
    chatRoutes(ctx, router);
    supportRoutes(ctx, router);
  },
};
