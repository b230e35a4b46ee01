import type { Bus } from '../infra/bus/port.js';
import type { Clock } from '../infra/clock.js';
import type { Config } from '../infra/config.js';
import type { Providers } from '../infra/providers.js';
import type { Db } from '../infra/db/database.js';
import type { SqlPool } from '../infra/db/sqlPool.js';
import type { EventStore } from '../infra/eventStore/port.js';
import type { Logger } from '../infra/logger.js';
import type { Metrics } from '../infra/metrics/metrics.js';
import type { Handle } from './handle.js';
import type { ReferenceData } from './referenceData.js';

/**
 * What a command may be given. Each handler names the few it uses (`Pick<CommandDeps, 'handle' | 'clock'>`),
 * so what it touches shows in its signature; the composition root's context satisfies every such pick.
 */
export interface CommandDeps {
  /** The one command path (commands/handle.ts). */
  handle: Handle;
  clock: Clock;
  config: Config;
  logger: Logger;
  /** The service's Prometheus instruments (infra/metrics/metrics.ts). */
  metrics: Metrics;
  /** Reads of other streams a decision takes as reference data. */
  store: EventStore;
  /** Other areas' records a decision reads, as functions (commands/referenceData.ts). */
  reference: ReferenceData;
  /** A command's own state-stored tables (OTP codes, chat, notifications), id sequences, checkpoints. */
  db: Db;
  providers: Providers;
  /** Plain SQL (rate limits). */
  pool: SqlPool;
  /** Fan-out of what is not an event (chat messages). */
  bus: Bus;
  /**
   * Read-your-writes: waits (bounded) until the named asynchronous read models have applied `position`; by
   * default those a write reads. Inline read models need no wait (they commit with the append), so on
   * PostgreSQL this waits only for what is named.
   */
  settle(position: number, readModels?: string[]): Promise<void>;
  /** Read-your-writes for a read model settled on read: waits (bounded) until it has applied everything so far. */
  caughtUp(projector: string): Promise<void>;
}
