import { sql } from 'kysely';
import { conflict, DomainError, tooMany, unauthorized } from '../../domain/errors.js';
import type { CommandDeps } from '../deps.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import { driverCommands } from '../driver/handlers.js';
import { confirmPhoneCode } from './phoneCode.js';
import { rateLimit } from './rateLimit.js';
import { newOpaqueToken, newOtpCode, otpHash, sha256 } from '../../infra/identity/secrets.js';

type Deps = Pick<CommandDeps, 'handle' | 'clock' | 'config' | 'db' | 'logger' | 'pool' | 'providers' | 'settle'>;

export type AppKind = 'client' | 'driver';

export interface UserRow {
  id: number;
  phone: string;
  name: string | null;
  email: string | null;
  role: 'CLIENT' | 'DRIVER';
  driver_id: number | null;
  is_active: boolean;
}

const roleOf = (app: AppKind) => (app === 'driver' ? 'DRIVER' : 'CLIENT');

/** The OTP limits (docs/domain-rules.md) hold in production; OTP_RATE_LIMIT overrides (tests turn them on). */
const rateLimited = (ctx: Deps) => ctx.config.OTP_RATE_LIMIT ?? ctx.config.APP_ENV === 'production';

export const findUserById = (ctx: Deps, id: number): Promise<UserRow | undefined> =>
  ctx.db
    .selectFrom('users')
    .select(['id', 'phone', 'name', 'email', 'role', 'driver_id', 'is_active'])
    .where('id', '=', id)
    .executeTakeFirst();

export const findUserByPhone = (ctx: Deps, phone: string): Promise<UserRow | undefined> =>
  ctx.db
    .selectFrom('users')
    .select(['id', 'phone', 'name', 'email', 'role', 'driver_id', 'is_active'])
    .where('phone', '=', phone)
    .executeTakeFirst();

export const issueAppToken = async (ctx: Deps, userId: number): Promise<string> => {
  const token = newOpaqueToken();
  const now = ctx.clock.now();
  await ctx.db
    .insertInto('app_sessions')
    .values({ token_hash: sha256(token), user_id: userId, created_at: now, revoked_at: null, last_used_at: now })
    .execute();
  return token;
};

/**
 * Creates (idempotently) the driver stream of a DRIVER user: a crash between the user row and the
 * first event is repaired on the next sign-in.
 */
const ensureDriverRegistered = async (ctx: Deps, user: UserRow, metadata: EventMetadata): Promise<number> => {
  const r = await driverCommands(ctx).register(
    { driverId: user.driver_id!, userId: user.id, phone: user.phone, name: user.name },
    metadata,
  );
  return r.position;
};

export const phoneAuth = (ctx: Deps) => {
  const secret = ctx.config.JWT_SECRET;
  const {
    OTP_RATE_WINDOW_MINUTES,
    OTP_REQUESTS_PER_IP_PER_WINDOW,
    OTP_REQUESTS_PER_WINDOW,
    OTP_VERIFICATIONS_PER_WINDOW,
  } = ctx.config;
  const windowMs = OTP_RATE_WINDOW_MINUTES * 60_000;
  const requestsPerIp = rateLimit(ctx.pool, 'otp-request-ip', OTP_REQUESTS_PER_IP_PER_WINDOW, windowMs);
  const requestsPerPhone = rateLimit(ctx.pool, 'otp-request', OTP_REQUESTS_PER_WINDOW, windowMs);
  const verificationsPerPhone = rateLimit(ctx.pool, 'otp-verify', OTP_VERIFICATIONS_PER_WINDOW, windowMs);

  return {
    /** Sends a fresh code (replacing any earlier one). Returns the code for non-production answers. */
    async requestOtp(phone: string, clientIp?: string): Promise<{ code: string; mocked: boolean }> {
      const now = ctx.clock.now();
      if (rateLimited(ctx)) {
        // SMS pumping sprays many numbers from one address: the caller's IP has a budget of its own,
        // checked first so that a refused sprayer does not use up its victims' per-phone budgets.
        if (clientIp) {
          const ip = await requestsPerIp.hit(clientIp);
          if (!ip.allowed)
            throw tooMany('SmsSendError', 'Too many codes requested from this address; try again later.', {
              retryAfterSeconds: ip.retryAfterSeconds,
            });
        }
        const v = await requestsPerPhone.hit(phone);
        if (!v.allowed)
          throw tooMany('SmsSendError', 'Too many codes requested for this phone; try again later.', {
            retryAfterSeconds: v.retryAfterSeconds,
          });
      }
      const code = newOtpCode();
      const row = {
        phone,
        code_hash: otpHash(secret, phone, code),
        expires_at: new Date(now.getTime() + ctx.config.OTP_TTL_MINUTES * 60_000),
        attempts: 0,
        created_at: now,
      };
      await ctx.db
        .insertInto('otp_codes')
        .values(row)
        .onConflict((oc) =>
          oc
            .column('phone')
            .doUpdateSet({ code_hash: row.code_hash, expires_at: row.expires_at, attempts: 0, created_at: now }),
        )
        .execute();
      try {
        await ctx.providers.sms.send(
          phone,
          `Tu código de acceso es ${code}. Vence en ${ctx.config.OTP_TTL_MINUTES} minutos.`,
          { code },
        );
      } catch (err) {
        ctx.logger.warn({ err }, 'SMS provider failed');
        await ctx.db
          .deleteFrom('otp_codes')
          .where('phone', '=', phone)
          .where('code_hash', '=', row.code_hash)
          .execute();
        throw tooMany('SmsSendError', 'The code could not be sent; try again later.');
      }
      return { code, mocked: ctx.providers.sms.simulated && ctx.config.APP_ENV !== 'production' };
    },

    /** The code is checked and consumed by `confirmPhoneCode` (phoneCode.ts), then the user is found or made. */
    async verifyOtp(phone: string, code: string, app: AppKind, metadata: EventMetadata) {
      if (rateLimited(ctx)) {
        const v = await verificationsPerPhone.hit(phone);
        if (!v.allowed)
          throw tooMany('Cooldown', 'Too many verification attempts for this phone; try again later.', {
            retryAfterSeconds: v.retryAfterSeconds,
          });
      }
      await confirmPhoneCode(ctx, phone, code);

      let user = await findUserByPhone(ctx, phone);
      let isNew = false;
      if (!user) {
        const role = roleOf(app);
        const inserted = await ctx.db
          .insertInto('users')
          .values({
            phone,
            name: null,
            email: null,
            role,
            driver_id: role === 'DRIVER' ? sql<number>`nextval('driver_id_seq')` : null,
          })
          .onConflict((oc) => oc.column('phone').doNothing())
          .returning(['id', 'phone', 'name', 'email', 'role', 'driver_id', 'is_active'])
          .executeTakeFirst();
        isNew = inserted !== undefined;
        user = inserted ?? (await findUserByPhone(ctx, phone))!;
      }
      if (user.role !== roleOf(app)) {
        throw conflict(
          'RoleConflict',
          `This phone is registered as a ${user.role === 'DRIVER' ? 'driver' : 'client'}.`,
        );
      }
      if (!user.is_active) throw new DomainError('forbidden', 'Forbidden', 'This account is disabled.');
      if (user.role === 'DRIVER')
        await ctx.settle(
          await ensureDriverRegistered(ctx, user, { ...metadata, actor: { id: user.id, role: 'DRIVER' } }),
        );
      return { token: await issueAppToken(ctx, user.id), user, isNew };
    },

    /** Revokes the presented token; a token already revoked (a concurrent refresh) is refused. */
    async revoke(tokenHash: string): Promise<number> {
      const row = await ctx.db
        .updateTable('app_sessions')
        .set({ revoked_at: ctx.clock.now() })
        .where('token_hash', '=', tokenHash)
        .where('revoked_at', 'is', null)
        .returning('user_id')
        .executeTakeFirst();
      if (!row) throw unauthorized('Unauthorized', 'Missing, invalid or expired token.');
      return row.user_id;
    },
  };
};
