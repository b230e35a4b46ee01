import type { Bus } from '../bus/port.js';
import type { Logger } from '../logger.js';
import type { Authenticator } from './port.js';

/**
 * Said on the bus whenever a principal's sessions may have ended or changed (logout, refresh of an app
 * token, a user's profile, an admin deactivated, their password or rights changed), so that every gateway
 * instance checks the sockets that principal holds again at once, and every instance drops the sessions
 * of that principal it keeps in its cache (docs/decisions/0045-caches-and-invalidation.md).
 */
export const SESSION_CHANGES = 'identity.sessions.changed';

export interface SessionChange {
  role: 'ADMIN' | 'USER';
  id: number;
}

/**
 * Best effort: the change itself is committed, every socket is checked again on its next subscribe, and a
 * cached session of another instance lives out its short life at most. This instance forgets at once.
 */
export const announceSessionChange = async (
  ctx: { bus: Bus; logger: Logger; auth?: Pick<Authenticator, 'forget'> },
  change: SessionChange,
): Promise<void> => {
  ctx.auth?.forget(change);
  await ctx.bus
    .publish(SESSION_CHANGES, change)
    .catch((err) => ctx.logger.warn({ err, change }, 'could not announce a session change'));
};
