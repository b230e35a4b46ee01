import { DomainError, tooMany } from '../../domain/errors.js';
import type { CommandDeps } from '../deps.js';
import { rateLimit } from './rateLimit.js';

type Deps = Pick<CommandDeps, 'config' | 'logger' | 'pool'>;

const accountOf = (email: string) => email.trim().toLowerCase();

/**
 * Admin sign-in limits: failed logins per client IP and per account, password-reset requests per IP and
 * per account. A password guesser is stopped before argon2 runs; a successful login gives back the
 * attempt it was counted as, so an admin who signs in often is never limited.
 */
export const adminSignInLimits = (ctx: Deps) => {
  const c = ctx.config;
  const windowMs = c.ADMIN_AUTH_RATE_WINDOW_MINUTES * 60_000;
  const limit = (name: string, points: number) => rateLimit(ctx.pool, name, points, windowMs);
  const loginPerIp = limit('admin-login-ip', c.ADMIN_AUTH_ATTEMPTS_PER_IP_PER_WINDOW);
  const loginPerAccount = limit('admin-login', c.ADMIN_AUTH_ATTEMPTS_PER_ACCOUNT_PER_WINDOW);
  const resetPerIp = limit('admin-reset-ip', c.ADMIN_AUTH_ATTEMPTS_PER_IP_PER_WINDOW);
  const resetPerAccount = limit('admin-reset', c.ADMIN_AUTH_ATTEMPTS_PER_ACCOUNT_PER_WINDOW);

  const refuse = (retryAfterSeconds: number) =>
    tooMany('Cooldown', 'Too many attempts; try again later.', { retryAfterSeconds });

  /** The IP's budget first, so that a refused address does not use up its victims' account budgets. */
  const hitBoth = async (
    perIp: typeof loginPerIp,
    perAccount: typeof loginPerIp,
    ip: string | undefined,
    account: string,
  ) => {
    if (ip) {
      const v = await perIp.hit(ip);
      if (!v.allowed) throw refuse(v.retryAfterSeconds);
    }
    const v = await perAccount.hit(account);
    if (!v.allowed) throw refuse(v.retryAfterSeconds);
  };

  return {
    async login<T>(email: string, ip: string | undefined, attempt: () => Promise<T>): Promise<T> {
      const account = accountOf(email);
      if (c.ADMIN_AUTH_RATE_LIMIT) await hitBoth(loginPerIp, loginPerAccount, ip, account);
      let signedIn: T;
      try {
        signedIn = await attempt();
      } catch (err) {
        // Who was tried and from where, for an operator watching a guesser; never the password.
        if (err instanceof DomainError && err.kind === 'unauthorized')
          ctx.logger.warn({ email: account, ip }, 'admin login failed');
        throw err;
      }
      if (c.ADMIN_AUTH_RATE_LIMIT)
        await Promise.all([ip ? loginPerIp.refund(ip) : undefined, loginPerAccount.refund(account)]);
      return signedIn;
    },

    async passwordReset(email: string, ip: string | undefined): Promise<void> {
      if (c.ADMIN_AUTH_RATE_LIMIT) await hitBoth(resetPerIp, resetPerAccount, ip, accountOf(email));
    },
  };
};
