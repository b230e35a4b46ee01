import type { Logger } from '../logger.js';
import { isConnectionLoss } from './databaseUnavailable.js';
import type { SqlPool } from './sqlPool.js';

export class StartAborted extends Error {
  constructor() {
    super('start-up was interrupted by a signal');
    this.name = 'StartAborted';
  }
}

/**
 * Start-up waits for a database that is not there yet (a restart, a deployment where the app comes up
 * first) instead of exiting into a supervisor's crash loop: one log line per try, backing off from
 * `firstDelayMs` to `maxDelayMs`. Anything but a connection loss (bad password, missing database) is a
 * configuration error and is thrown at once. A signal (`abort`) ends the wait.
 */
export const waitForDatabase = async (
  pool: SqlPool,
  logger: Logger,
  {
    abort,
    firstDelayMs = 250,
    maxDelayMs = 5000,
  }: { abort?: AbortSignal; firstDelayMs?: number; maxDelayMs?: number } = {},
): Promise<void> => {
  for (let attempt = 1, delayMs = firstDelayMs; ; attempt++, delayMs = Math.min(maxDelayMs, delayMs * 2)) {
    if (abort?.aborted) throw new StartAborted();
    try {
      await pool.query('SELECT 1');
      if (attempt > 1) logger.info({ attempt }, 'database reachable');
      return;
    } catch (err) {
      if (!isConnectionLoss(err)) throw err;
      logger.warn(
        {
          attempt,
          retryInMs: delayMs,
          reason: (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : String(err),
        },
        'database not reachable yet; waiting',
      );
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, delayMs);
      function done() {
        clearTimeout(timer);
        abort?.removeEventListener('abort', done);
        resolve();
      }
      abort?.addEventListener('abort', done, { once: true });
    });
  }
};
