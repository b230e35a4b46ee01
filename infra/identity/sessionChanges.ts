import type { Bus } from '../bus/port.js';
import type { Logger } from '../logger.js';

/**
 * Said on the bus whenever a principal's sessions may have ended or changed (logout, refresh of an app
 * token, an admin deactivated, their password or rights changed), so that every gateway instance checks
 * the sockets that principal holds again at once.
 */
export const SESSION_CHANGES = 'identity.sessions.changed';

export interface SessionChange {
  role: 'ADMIN' | 'USER';
  id: number;
}

/** Best effort: the change itself is committed, and every socket is checked again on its next subscribe. */
export const announceSessionChange = async (
  ctx: { bus: Bus; logger: Logger },
  change: SessionChange,
): Promise<void> => {
  await ctx.bus
    .publish(SESSION_CHANGES, change)
    .catch((err) => ctx.logger.warn({ err, change }, 'could not announce a session change'));
};
