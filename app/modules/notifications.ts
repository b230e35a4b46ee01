import type { AppModule } from '../context.js';
import { channelsOf } from '../../infra/ws/channels.js';
import {
  notificationMigrations,
  notificationsProjector,
} from '../../projections/notifications/notificationsProjector.js';
import { purgeExpired } from '../../commands/notification/inbox.js';
import { notificationRoutes } from '../../api/notifications/routes.js';

/** The inbox (spec 2.12, 4.12) and its real-time channel `notifications.<userId>`. */
export const notificationsModule: AppModule = {
  name: 'notifications',
  migrations: notificationMigrations,
  projectors: [notificationsProjector],
  init(ctx) {
    // App users only: admin ids live in another id space and must not open a user's channel.
    channelsOf(ctx).register(
      'notifications.',
      (actor, channel) =>
        (actor.role === 'CLIENT' || actor.role === 'DRIVER') && channel === `notifications.${actor.id}`,
    );
    ctx.scheduler.register({
      name: 'notification-retention',
      everyMs: 60 * 60_000,
      run: (now) => purgeExpired(ctx, now),
    });
  },
  routes: notificationRoutes,
};
