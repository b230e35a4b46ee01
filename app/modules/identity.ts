import { readFileSync } from 'node:fs';
import { adminAdminsRoutes } from '../../api/admin/admins/routes.js';
import { adminAuthRoutes } from '../../api/admin/auth/routes.js';
import { adminDriversRoutes } from '../../api/admin/drivers/routes.js';
import { citiesRoutes } from '../../api/cities/routes.js';
import { driverRoutes } from '../../api/drivers/routes.js';
import { identityRoutes } from '../../api/identity/routes.js';
import { createSuperAdmin } from '../../commands/identity/adminAccounts.js';
import { clientProfilesFromOrders } from '../../projections/orders/clientProfileStats.js';
import { purgeExpiredRateLimits } from '../../commands/identity/rateLimit.js';
import { driversMigrations, driversProjector } from '../../projections/drivers/driversProjector.js';
import type { AppModule } from '../context.js';
import { createHttpMailer, createMailSimulator } from '../../infra/mail/mailer.js';
import { createSmtpMailer } from '../../infra/mail/smtpMailer.js';
import { createHttpSmsSender, createSmsSimulator } from '../../infra/sms/smsSender.js';
import { createTwilioSmsSender } from '../../infra/sms/twilioSmsSender.js';
import { adminJwt } from '../../infra/identity/adminJwt.js';
import { createAuthenticator } from '../../infra/identity/authenticator.js';
import { identityMigrations } from '../../stores/identity/identityTables.js';

/** Identity and access: phone sign-in, admin JWTs, roles, drivers' onboarding, cities. */
export const identityModule: AppModule = {
  name: 'identity',
  migrations: { ...identityMigrations, ...driversMigrations },
  projectors: [driversProjector],
  async init(ctx) {
    ctx.auth = createAuthenticator({
      db: ctx.db,
      clock: ctx.clock,
      config: ctx.config,
      jwt: adminJwt(ctx.config, ctx.clock),
      bus: ctx.bus,
    });
    const c = ctx.config;
    // Config has checked that each choice is whole (Twilio's three settings, SMTP's sender) and made once.
    ctx.providers.sms = c.TWILIO_ACCOUNT_SID
      ? createTwilioSmsSender({
          accountSid: c.TWILIO_ACCOUNT_SID,
          authToken: c.TWILIO_AUTH_TOKEN!,
          from: c.TWILIO_FROM!,
          apiUrl: c.TWILIO_API_URL,
        })
      : c.SMS_PROVIDER_URL
        ? createHttpSmsSender(c.SMS_PROVIDER_URL, c.SMS_PROVIDER_KEY)
        : createSmsSimulator(ctx.outbox);
    ctx.providers.mail = c.SMTP_URL
      ? createSmtpMailer({
          url: c.SMTP_URL,
          from: c.MAIL_FROM!,
          ca: c.SMTP_CA_FILE ? readFileSync(c.SMTP_CA_FILE, 'utf8') : undefined,
        })
      : c.MAIL_PROVIDER_URL
        ? createHttpMailer(c.MAIL_PROVIDER_URL, c.MAIL_PROVIDER_KEY)
        : createMailSimulator(ctx.outbox);
    ctx.providers.clientProfiles ??= clientProfilesFromOrders(ctx.db);
    if (c.ADMIN_BOOTSTRAP_EMAIL && c.ADMIN_BOOTSTRAP_PASSWORD) {
      const outcome = await createSuperAdmin(
        ctx.db,
        ctx.clock.now(),
        c.ADMIN_BOOTSTRAP_EMAIL,
        c.ADMIN_BOOTSTRAP_PASSWORD,
      );
      if (outcome === 'created') ctx.logger.info({ email: c.ADMIN_BOOTSTRAP_EMAIL }, 'bootstrap super admin created');
    }
    ctx.scheduler.register({
      name: 'identity-cleanup',
      everyMs: 10 * 60_000,
      async run(now) {
        await purgeExpiredRateLimits(ctx.pool);
        await ctx.db.deleteFrom('otp_codes').where('expires_at', '<=', now).execute();
        await ctx.db.deleteFrom('jwt_blacklist').where('expires_at', '<=', now).execute();
      },
    });
  },
  routes(ctx, router) {
    identityRoutes(ctx, router);
    driverRoutes(ctx, router);
    citiesRoutes(ctx, router);
    adminAuthRoutes(ctx, router);
    adminAdminsRoutes(ctx, router);
    adminDriversRoutes(ctx, router);
  },
};
