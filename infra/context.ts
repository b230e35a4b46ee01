import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Router } from 'express';
import type { Migration } from 'kysely';
import type { Authenticator } from './identity/port.js';
import type { Handle } from '../commands/handle.js';
import type { Projector } from '../projections/projector.js';
import type { ProjectionRunner } from '../projections/runner.js';
import type { Bus } from './bus/port.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import type { SqlPool } from './db/sqlPool.js';
import type { EventStore } from './eventStore/port.js';
import type { Logger } from './logger.js';
import type { DevOutbox } from './outbox/devOutbox.js';
import type { Scheduler } from './scheduler.js';

/**
 * Outside providers (SMS, mail, payments, push, maps …). Each area adds its ports by declaration merging
 * and sets them in its module's init, choosing the real adapter or the simulator from config.
 */
// Each module adds its providers by declaration merging.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Providers {}

/** What every module, router and handler is built from: the composition root fills it once. */
export interface AppContext {
  config: Config;
  logger: Logger;
  clock: Clock;
  pool: SqlPool;
  db: Db;
  store: EventStore;
  bus: Bus;
  runner: ProjectionRunner;
  scheduler: Scheduler;
  handle: Handle;
  openapi: OpenAPIRegistry;
  auth: Authenticator;
  providers: Providers;
  /** Where simulated providers record what they sent (GET /dev/outbox). */
  outbox: DevOutbox;
  /**
   * Read-your-writes: waits (bounded) until the named asynchronous read models have applied `position`; by
   * default those a write reads. Inline read models need no wait (they commit with the append), so on
   * PostgreSQL and PGlite this waits only for what is named.
   */
  settle(position: number, readModels?: string[]): Promise<void>;
  /**
   * Read-your-writes for a read model settled on read: waits (bounded) until it has applied everything appended so far.
   */
  caughtUp(projector: string): Promise<void>;
}

/** One area of the product, as the composition root sees it. */
export interface AppModule {
  name: string;
  migrations?: Record<string, Migration>;
  projectors?: Projector[];
  /** Once, after migrations and before the API listens: set ports, seed data, register jobs. */
  init?(ctx: AppContext): Promise<void> | void;
  routes?(ctx: AppContext, router: Router): void;
}
