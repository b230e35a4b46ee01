import type { AppModule } from '../context.js';
import { deviceTokenMigrations } from '../../stores/push/deviceTokens.js';
import { createFcmPushSender, createFcmV1PushSender } from '../../infra/push/fcmPushSender.js';
import { readServiceAccount } from '../../infra/push/serviceAccount.js';
import { createSimulatedPushSender } from '../../infra/push/simulatedPushSender.js';
import { deviceTokenRoutes } from '../../api/deviceTokens/routes.js';

/** A claim older than this can no longer be contested: notifications fan out only while fresh. */
const PUSH_CLAIM_KEEP_MS = 86_400_000;

/** Device tokens (spec 2.13, 4.13) and the push provider the push gateway sends through. */
export const deviceTokensModule: AppModule = {
  name: 'device-tokens',
  migrations: deviceTokenMigrations,
  async init(ctx) {
    const c = ctx.config;
    ctx.providers.push = c.GOOGLE_APPLICATION_CREDENTIALS
      ? await createFcmV1PushSender(readServiceAccount(c.GOOGLE_APPLICATION_CREDENTIALS), c.FCM_API_URL, ctx.clock)
      : c.PUSH_PROVIDER_URL
        ? createFcmPushSender(c.PUSH_PROVIDER_URL, c.PUSH_PROVIDER_KEY)
        : createSimulatedPushSender(ctx.outbox);
    ctx.scheduler.register({
      name: 'push-claims-cleanup',
      everyMs: 60 * 60_000,
      run: async (now) => {
        await ctx.db
          .deleteFrom('push_deliveries')
          .where('claimed_at', '<', new Date(now.getTime() - PUSH_CLAIM_KEEP_MS))
          .execute();
      },
    });
  },
  routes: deviceTokenRoutes,
};
