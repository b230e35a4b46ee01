import type { Router } from 'express';
import type { StoredFunction } from '../infra/db/migrate.js';
import type { Migration } from 'kysely';
import type { ApiContext } from '../api/apiContext.js';
import type { Scheduler } from '../infra/scheduler.js';
import type { Projector } from '../projections/projector.js';

/** What every module is built from: the composition root fills it once. */
export interface AppContext extends ApiContext {
  /** Recurring jobs (settlement runs, offer expiry, retention), at most one runner per job across instances. */
  scheduler: Scheduler;
}

/** One area of the product, as the composition root sees it. */
export interface AppModule {
  name: string;
  migrations?: Record<string, Migration>;
  /** SQL functions it defines, created or replaced after the migrations when their text changes. */
  functions?: StoredFunction[];
  projectors?: Projector[];
  /** Once, after migrations and before the API listens: set ports, seed data, register jobs. */
  init?(ctx: AppContext): Promise<void> | void;
  routes?(ctx: AppContext, router: Router): void;
}
