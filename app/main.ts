import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../infra/config.js';
import { keepJwtSecretWithData } from '../infra/developmentJwtSecret.js';
import { DirectoryLocked } from '../infra/db/directoryLock.js';
import { EmbeddedStartFailed, EmbeddedUnsupported } from '../infra/db/embeddedPostgres.js';
import { openPool } from '../infra/db/openPool.js';
import { StartAborted } from '../infra/db/waitForDatabase.js';
import { createLogger } from '../infra/logger.js';
import { startTracing } from '../infra/tracing/tracing.js';
import type { Service } from './composition.js';
import { ALL_ROLES, type ProcessRole } from './roles.js';

// Past the HTTP drain (SHUTDOWN_TIMEOUT_MS), projectors, bus and pools get this long before we give up.
const STOP_GRACE_MS = 5000;

/**
 * `npm start` / `node dist/app/main.js`: API, projectors, schedulers and gateways in one process, or
 * only those named by --role. SIGTERM or SIGINT stops it in bounded time, also while it is still waiting
 * for its database at start-up.
 */
const main = async () => {
  const { values } = parseArgs({ options: { role: { type: 'string', multiple: true } }, allowPositionals: true });
  const roles = (values.role ?? []).flatMap((r) => r.split(','));
  const bad = roles.filter((r) => !ALL_ROLES.includes(r as ProcessRole));
  if (bad.length) throw new ConfigError(`Unknown --role ${bad.join(', ')} (use ${ALL_ROLES.join('|')})`);
  const config = keepJwtSecretWithData(loadConfig(), process.env);
  // Before the service's modules load, so that every span they start has the process's provider.
  const stopTracing = startTracing(process.env);

  const starting = new AbortController();
  const stopping = new AbortController();
  let service: Service | null = null;
  let stopSignal: string | null = null;
  const shutdown = (signal: string) => {
    if (stopSignal) return;
    stopSignal = signal;
    if (!service) {
      starting.abort();
      return;
    }
    const s = service;
    // SIGTERM is a deployment taking the instance out: a load balancer needs the grace. SIGINT is a person.
    const graceMs = signal === 'SIGTERM' ? config.SHUTDOWN_GRACE_MS : 0;
    stopping.abort();
    s.ctx.logger.info({ signal }, 'shutting down');
    setTimeout(
      () => {
        s.ctx.logger.error({ signal }, 'shutdown did not finish in time; exiting');
        process.exit(1);
      },
      graceMs + config.SHUTDOWN_TIMEOUT_MS + STOP_GRACE_MS,
    ).unref();
    s.stop(graceMs)
      .then(() => stopTracing?.())
      .then(
        () => process.exit(0),
        (err) => {
          s.ctx.logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  // The database starts first (a new embedded cluster's initdb and postmaster are child processes), while
  // this process loads the service's modules: on two cores the two overlap instead of adding up.
  const logger = createLogger(config.LOG_LEVEL);
  const [pool, { buildService }] = await Promise.all([openPool(config, logger), import('./composition.js')]);
  const built = await buildService({
    config,
    logger,
    pool,
    roles: roles.length ? (roles as ProcessRole[]) : ALL_ROLES,
    abort: starting.signal,
  });
  const port = await built.start();
  service = built;
  built.ctx.logger.info(
    {
      port,
      roles: roles.length ? roles : ALL_ROLES,
      store: built.ctx.store.name,
      bus: built.ctx.bus.name,
      env: config.APP_ENV,
    },
    'service started',
  );
  // A signal that came while we were starting (after the database wait) is honoured now.
  if (stopSignal) {
    const signal = stopSignal;
    stopSignal = null;
    shutdown(signal);
  }
};

main().catch((err) => {
  if (err instanceof StartAborted) {
    process.exit(0);
  } else if (
    err instanceof ConfigError ||
    err instanceof DirectoryLocked ||
    err instanceof EmbeddedUnsupported ||
    err instanceof EmbeddedStartFailed
  ) {
    console.error(err.message);
  } else {
    console.error('Start-up failed:', err instanceof Error ? err.message : err);
  }
  process.exit(1);
});
