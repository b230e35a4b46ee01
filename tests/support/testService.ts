import { randomBytes } from 'node:crypto';
import type { Clock } from '../../infra/clock.js';
import { loadConfig } from '../../infra/config.js';
import { buildService, type Service } from '../../app/composition.js';
import type { AppModule } from '../../app/context.js';
import type { ProcessRole } from '../../app/roles.js';
import { createLogger, type Logger } from '../../infra/logger.js';
import { contractCheckerFor, contractCheckOn, type ContractChecker } from './openapiContract.js';
import { createPostgresPool, type SqlPool } from '../../infra/db/sqlPool.js';
import { databaseOn, embeddedTestDatabase } from './testDatabases.js';

/**
 * A fresh Postgres database on the server of DATABASE_URL, so that test files running side by side
 * never see each other's events or rows.
 */
export const freshDatabaseUrl = (): Promise<{ url: string; drop: () => Promise<void> }> =>
  databaseOn(process.env.DATABASE_URL!);

/** The super admin every test service bootstraps (tests/support/actors.ts signs in with it). */
export const TEST_SUPER_ADMIN = { email: 'root@test.local', password: 'root-password-123' };

/**
 * What production needs to start (its refusals are tested on their own): real secrets, and the
 * simulators allowed, since tests have no real providers.
 */
export const PRODUCTION_ENV = {
  APP_ENV: 'production',
  JWT_SECRET: 'production-jwt-secret-0123456789abcdef',
  PAYMENT_WEBHOOK_SECRET: 'production-payment-webhook-secret-0123456789',
  PAYOUT_WEBHOOK_TOKEN: 'production-payout-webhook-token-0123456789',
  ALLOW_SIMULATED_PROVIDERS: 'true',
};

/** A logger made as the service makes its own, whose JSON lines a test reads back. */
export const capturedLogger = (level = 'info'): { logger: Logger; lines(): string } => {
  let text = '';
  const logger = createLogger(level, { write: (line: string) => void (text += line) });
  return { logger, lines: () => text };
};

export interface TestResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface TestService {
  service: Service;
  baseUrl: string;
  port: number;
  request<T = any>(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string>; raw?: string },
  ): Promise<TestResponse<T>>;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  env?: Record<string, string>;
  clock?: Clock;
  logger?: Logger;
  roles?: ProcessRole[];
  shared?: { databaseUrl?: string; busPrefix?: string };
  /** The service's modules (all by default); a test adds one of its own. */
  modules?: AppModule[];
  /** Starts the metrics listener on a free port of its own (metricsUrl); off otherwise. */
  scraped?: boolean;
}

/**
 * Builds the real service without starting it: a database of its own on the run's embedded PostgreSQL
 * (copied from the migrated template) and the in-process bus by default, the real
 * PostgreSQL and NATS when DATABASE_URL / NATS_URL are set. `shared` reuses another instance's database
 * and bus prefix (two instances of one deployment). `drop` removes a database made for it.
 */
export const buildTestService = async (
  options: ServiceOptions = {},
): Promise<{ service: Service; databaseUrl?: string; busPrefix: string; drop?: () => Promise<void> }> => {
  let databaseUrl = options.shared?.databaseUrl;
  let drop: (() => Promise<void>) | undefined;
  if (process.env.DATABASE_URL && !databaseUrl) {
    const fresh = await freshDatabaseUrl();
    databaseUrl = fresh.url;
    drop = fresh.drop;
  }
  const busPrefix = options.shared?.busPrefix ?? `t${randomBytes(5).toString('hex')}`;
  const env: Record<string, string | undefined> = {
    APP_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    HOST: '127.0.0.1',
    // Files run side by side: a test that scrapes asks start() for a free port of its own.
    METRICS_PORT: '0',
    EMBEDDED_DB_DIR: 'memory://',
    PROJECTION_POLL_MS: '50',
    DATABASE_URL: databaseUrl,
    NATS_URL: process.env.NATS_URL,
    BUS_SUBJECT_PREFIX: busPrefix,
    ADMIN_BOOTSTRAP_EMAIL: TEST_SUPER_ADMIN.email,
    ADMIN_BOOTSTRAP_PASSWORD: TEST_SUPER_ADMIN.password,
    JWT_SECRET: 'test-jwt-secret-0123456789abcdef',
    ...options.env,
  };
  const config = loadConfig(env);
  // An embedded test database is a copy of a migrated one on the run's cluster: the migrations still run,
  // and find nothing to do. Benchmarks start test services outside vitest, each with a cluster of its own.
  let pool: SqlPool | undefined;
  if (process.env.VITEST !== undefined && !config.DATABASE_URL && config.EMBEDDED_DB_DIR === 'memory://') {
    const fresh = await embeddedTestDatabase('migrated');
    databaseUrl = fresh.url;
    drop = fresh.drop;
    pool = createPostgresPool(fresh.url);
  }
  try {
    const service = await buildService({
      config,
      clock: options.clock,
      logger: options.logger,
      roles: options.roles,
      modules: options.modules,
      pool,
    });
    return { service, databaseUrl, busPrefix, drop };
  } catch (err) {
    await drop?.();
    throw err;
  }
};

/**
 * A client of the service at `baseUrl`. Every response a test receives is checked against the served
 * document (tests/support/openapiContract.ts).
 */
export const requestsTo = (baseUrl: string): TestService['request'] => {
  let contract: Promise<ContractChecker> | undefined;
  return async (method, path, { token, body, headers, raw } = {}) => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: {
        ...(body !== undefined || raw !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body: raw ?? (body !== undefined ? JSON.stringify(body) : undefined),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON: the test sees the text.
    }
    if (contractCheckOn())
      (await (contract ??= contractCheckerFor(baseUrl))).check(
        method,
        res.url || baseUrl + path,
        res.status,
        res.headers,
        parsed,
        text,
      );
    return { status: res.status, body: parsed as any, headers: res.headers };
  };
};

/** Starts the real service (see buildTestService) on a free port, with its projectors and schedulers. */
export const startTestService = async (
  options: ServiceOptions = {},
): Promise<TestService & { databaseUrl?: string; busPrefix: string; metricsUrl: string | null }> => {
  const { service, databaseUrl, busPrefix, drop } = await buildTestService(options);
  const port = await service.start(0, options.scraped ? 0 : null);
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    service,
    baseUrl,
    port,
    metricsUrl: service.metricsPort === null ? null : `http://127.0.0.1:${service.metricsPort}`,
    databaseUrl,
    busPrefix,
    request: requestsTo(baseUrl),
    async stop() {
      await service.stop();
      await drop?.();
    },
  };
};

/** A started instance whose database and bus prefix a second instance of the same deployment can share. */
type SharedInstance = Awaited<ReturnType<typeof startTestService>>;

/** Another instance of `first`'s deployment: its database and bus prefix, its own process state and port. */
export const startInstanceBeside = (first: SharedInstance, options: Omit<ServiceOptions, 'shared'> = {}) =>
  startTestService({ ...options, shared: { databaseUrl: first.databaseUrl, busPrefix: first.busPrefix } });
