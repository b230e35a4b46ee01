import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { createHttpApp } from '../api/app.js';
import { noAuthenticator } from '../api/auth.js';
import { createOpenApiRegistry } from '../api/openapi.js';
import { cachedReferenceData } from '../commands/referenceCache.js';
import { referenceDataOf } from '../commands/referenceData.js';
import { createHandle } from '../commands/handle.js';
import { cashDebtOnlineGate } from '../commands/wallet/onlineGate.js';
import { EVENT_SCHEMAS } from '../domain/events.js';
import { UPCASTERS } from '../domain/upcasters.js';
import { catchUpInlineProjections, inlineProjection } from '../projections/inline.js';
import type { Projector } from '../projections/projector.js';
import { ProjectionRunner } from '../projections/runner.js';
import { createInProcessBus } from '../infra/bus/inProcessBus.js';
import type { Bus } from '../infra/bus/port.js';
import { systemClock, type Clock } from '../infra/clock.js';
import type { Config } from '../infra/config.js';
import type { Providers } from '../infra/providers.js';
import type { AppContext, AppModule } from './context.js';
import { ALL_ROLES, type ProcessRole } from './roles.js';
import { createDb } from '../infra/db/database.js';
import { migrateToLatest } from '../infra/db/migrate.js';
import { waitForDatabase } from '../infra/db/waitForDatabase.js';
import { openPool } from '../infra/db/openPool.js';
import type { SqlPool } from '../infra/db/sqlPool.js';
import type { EventStore } from '../infra/eventStore/port.js';
import {
  createPostgresEventStore,
  postgresStreamHead,
  type InlineProjection,
} from '../infra/eventStore/postgresEventStore.js';
import { withEventVersioning } from '../infra/eventStore/versioning.js';
import { withHashChain } from '../infra/eventStore/hashChain.js';
import { withAlongsideAfterAppend } from '../infra/eventStore/alongsideAfter.js';
import { CHAINED_CATEGORIES } from '../domain/audit/events.js';
import { createLogger, type Logger } from '../infra/logger.js';
import { functionsOf, migrationsOf, modules as defaultModules } from './modules.js';
import { createDevOutbox } from '../stores/outbox/devOutbox.js';
import { startupWarnings } from '../infra/productionPolicy.js';
import { createDrainingServer, type DrainingServer } from '../infra/drainingServer.js';
import { Scheduler } from '../infra/scheduler.js';
import { startPushGateway, type PushGateway } from '../commands/push/pushGateway.js';
import { attachWsGateway, type WsGateway } from '../infra/ws/gateway.js';
import { createMetrics } from '../infra/metrics/metrics.js';
import { measureProviders } from '../infra/metrics/measuredProviders.js';
import { scrapeServiceState } from './serviceMetrics.js';
import { observed } from './observability.js';
import { listenForMetrics, type MetricsListener } from './metricsListener.js';

export interface BuildOptions {
  config: Config;
  clock?: Clock;
  logger?: Logger;
  roles?: ProcessRole[];
  modules?: AppModule[];
  /** A signal during start-up: stop waiting for the database and give up (StartAborted). */
  abort?: AbortSignal;
  /**
   * A database the caller opened (the entry point, while the service's modules load; tests, a copy of a
   * migrated template database) instead of the config's; the service closes it.
   */
  pool?: SqlPool;
}

export interface Service {
  ctx: AppContext;
  app: Express;
  server: Server | null;
  /** Where the metrics listener was bound, once started; null when it is off. */
  readonly metricsPort: number | null;
  /**
   * Starts the metrics listener (unless `metricsPort` is null; 0 binds any free port), projectors,
   * schedulers and (with the api role) the HTTP server; resolves with the API's bound port (0 without one).
   */
  start(port?: number, metricsPort?: number | null): Promise<number>;
  /**
   * Graceful: /ready says no at once; for `graceMs` every request still gets its answer, with `Connection:
   * close`; then stop accepting, finish in-flight requests, stop projectors at a checkpoint, close pools.
   */
  stop(graceMs?: number): Promise<void>;
}

/** The adapters a store is opened with, by backend; a test injects its own to see what the composition wraps them in. */
export interface StoreAdapters {
  postgres(pool: SqlPool, options: { pollMs: number; inline?: InlineProjection }): EventStore;
  esdb(url: string): Promise<EventStore>;
}

const storeAdapters: StoreAdapters = {
  postgres: createPostgresEventStore,
  async esdb(url) {
    const { openEsdbEventStore } = await import('../infra/eventStore/esdbEventStore.js');
    return openEsdbEventStore(url);
  },
};

/**
 * Every adapter is opened behind the same event versioning (docs/decisions/0041-event-schemas-and-versions.md):
 * the schema check and the upcasters belong to the store's boundary, not to one backend.
 * `inline`: read models the store applies in each append's transaction (PostgreSQL only).
 */
export const openStore = async (
  config: Config,
  pool: SqlPool,
  inline?: InlineProjection,
  adapters: StoreAdapters = storeAdapters,
): Promise<EventStore> => {
  const adapter = config.ESDB_URL
    ? withAlongsideAfterAppend(await adapters.esdb(config.ESDB_URL), pool)
    : adapters.postgres(pool, { pollMs: config.PROJECTION_POLL_MS, inline });
  // Under the versioning wrapper: the chain hashes what is stored, never an upcast event.
  const chained = withHashChain(adapter, {
    categories: CHAINED_CATEGORIES,
    readHead: config.ESDB_URL ? undefined : postgresStreamHead(pool),
  });
  return withEventVersioning(chained, {
    schemas: EVENT_SCHEMAS,
    upcasters: UPCASTERS,
    checkAppends: config.CHECK_EVENT_SCHEMAS ?? config.APP_ENV !== 'production',
  });
};

const openBus = async (config: Config, logger: Logger): Promise<Bus> => {
  if (config.NATS_URL) {
    // Connects in the background: NATS being down delays real-time hints, not the service (/ready says so).
    const { openNatsBus } = await import('../infra/bus/natsBus.js');
    return openNatsBus(config.NATS_URL, config.BUS_SUBJECT_PREFIX, logger);
  }
  return createInProcessBus();
};

/**
 * Every read model but those settled on read is applied in the append's transaction
 * (docs/decisions/0003-inline-and-async-read-models.md); EventStoreDB keeps the log elsewhere, so there all are
 * asynchronous and a write waits for those it reads.
 */
export const inlineProjectorsOf = (config: Config, projectors: Projector[]): Projector[] =>
  config.ESDB_URL ? [] : projectors.filter((p) => !p.settledOnRead);

/** The composition root: builds every port and module from config, once. */
export const buildService = async (options: BuildOptions): Promise<Service> => {
  const { config } = options;
  const roles = new Set(options.roles ?? ALL_ROLES);
  const modules = options.modules ?? defaultModules;
  const logger = options.logger ?? createLogger(config.LOG_LEVEL);
  const clock = options.clock ?? systemClock;
  const pool = options.pool ?? (await openPool(config, logger));
  const db = createDb(pool);
  try {
    await waitForDatabase(pool, logger, { abort: options.abort });
    await migrateToLatest(db, migrationsOf(modules), functionsOf(modules));
  } catch (err) {
    await db.destroy();
    throw err;
  }
  // Once the database is ours: a start refused before (a locked directory) stays one line.
  for (const w of startupWarnings(config)) logger.warn(w.details, w.message);
  const metrics = createMetrics();
  const observe = observed(metrics);
  const bus = observe.bus(await openBus(config, logger));
  const projectors = modules.flatMap((m) => m.projectors ?? []);
  const inlineProjectors = inlineProjectorsOf(config, projectors);
  const store = observe.store(
    await openStore(config, pool, inlineProjection(inlineProjectors, { bus, db, logger, kind: pool.kind })),
  );
  try {
    await catchUpInlineProjections({ db, pool, logger }, inlineProjectors);
  } catch (err) {
    await bus.close();
    await db.destroy();
    throw err;
  }
  const runner = new ProjectionRunner({
    db,
    pool,
    store: observe.runnerStore(store),
    bus,
    logger,
    projectors: projectors.filter((p) => !inlineProjectors.includes(p)).map(observe.projector),
    pollMs: config.PROJECTION_POLL_MS,
    lead: roles.has('projector'),
  });
  const scheduler = new Scheduler(clock, logger);
  const settledOnWrite = runner.projectors.filter((p) => !p.settledOnRead).map((p) => p.name);
  // The write is committed: failing to follow the read models (database gone a moment) must not turn its
  // answer into an error; the response is then read from the read model as it is.
  const followReadModels = async (position: number, projectors: string[]) => {
    const ok = await runner.waitFor(position, config.READ_YOUR_WRITES_TIMEOUT_MS, projectors).catch((err) => {
      logger.warn({ err, position }, 'could not follow the read models');
      return false;
    });
    if (!ok) logger.warn({ position, projectors }, 'read models did not reach the written position in time');
  };
  const ctx: AppContext = {
    config,
    logger,
    metrics,
    clock,
    pool,
    db,
    store,
    bus,
    runner,
    scheduler,
    handle: observe.handle(createHandle(store, { logger })),
    readiness: { stopping: false },
    openapi: createOpenApiRegistry(),
    auth: noAuthenticator,
    // Filled by the modules' init below; each module sets the ports it declares.
    providers: {} as Providers,
    outbox: createDevOutbox(db),
    reference: cachedReferenceData(referenceDataOf(db), clock, bus),
    async settle(position, readModels) {
      if (position <= 0) return;
      const asynchronous = readModels
        ? readModels.filter((name) => runner.projectors.some((p) => p.name === name))
        : settledOnWrite;
      if (asynchronous.length > 0) await followReadModels(position, asynchronous);
    },
    async caughtUp(projector) {
      const head = await store.headPosition().catch((err: unknown) => {
        logger.warn({ err, projector }, 'could not read the head of the log; the read model is read as it is');
        return 0;
      });
      if (head > 0) await followReadModels(head, [projector]);
    },
  };
  // Ports that one area offers another are wired here, once, not by whichever module's init runs last.
  ctx.providers.driverOnlineGate = cashDebtOnlineGate(ctx);
  for (const m of modules) await m.init?.(ctx);
  measureProviders(ctx.providers, metrics);
  const app = createHttpApp(ctx, (v1) => {
    for (const m of modules) m.routes?.(ctx, v1);
  });

  let http: DrainingServer | null = null;
  let wsGateway: WsGateway | null = null;
  let pushGateway: PushGateway | null = null;
  let metricsListener: MetricsListener | null = null;
  scrapeServiceState(metrics, { runner, store, pool, openSockets: () => wsGateway?.connections ?? 0 });
  let stopping: Promise<void> | null = null;
  const service: Service = {
    ctx,
    app,
    get server() {
      return http?.server ?? null;
    },
    get metricsPort() {
      return metricsListener?.port ?? null;
    },
    async start(port = config.PORT, metricsPort = config.METRICS_PORT || null) {
      if (metricsPort !== null) metricsListener = await listenForMetrics(ctx, metrics, metricsPort, config.HOST);
      await runner.start();
      if (roles.has('scheduler')) scheduler.start();
      if (!roles.has('api') && !roles.has('gateway')) return 0;
      http = createDrainingServer(app);
      const server = http.server;
      if (roles.has('gateway')) {
        wsGateway = attachWsGateway(server, ctx, {
          heartbeatMs: config.WS_HEARTBEAT_MS,
          maxSocketsPerUser: config.WS_MAX_SOCKETS_PER_USER,
          maxSocketsPerIp: config.WS_MAX_SOCKETS_PER_IP,
          // The client address as Express reads it for HTTP requests (TRUST_PROXY).
          trustProxy: app.get('trust proxy fn'),
        });
        pushGateway = startPushGateway(ctx);
      }
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, config.HOST, () => resolve());
      });
      return (server.address() as AddressInfo).port;
    },
    stop(graceMs = 0) {
      stopping ??= (async () => {
        // A load balancer sees /ready fail and stops sending; until it has, what arrives is answered (with
        // Connection: close, so each client opens its next request elsewhere) rather than reset.
        ctx.readiness.stopping = true;
        if (http && graceMs > 0) await http.closeEachAnswer(graceMs);
        // The drain starts (every answer from now on says Connection: close) and ends when the
        // websockets too are closed: an open one would keep the HTTP server from closing. Projectors keep
        // running meanwhile: the requests being answered wait for their writes to project.
        const drained = http?.drain(config.SHUTDOWN_TIMEOUT_MS);
        await wsGateway?.close();
        await pushGateway?.close();
        await drained;
        await scheduler.stop();
        await runner.stop();
        await bus.close();
        await store.close();
        await db.destroy();
        await metricsListener?.close();
      })();
      return stopping;
    },
  };
  return service;
};
