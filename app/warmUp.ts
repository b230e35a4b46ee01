import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInProcessBus } from '../infra/bus/inProcessBus.js';
import type { Config } from '../infra/config.js';
import { shadowTables } from '../infra/db/shadowTables.js';
import { onOneConnection, type SqlClient, type SqlPool } from '../infra/db/sqlPool.js';
import { createLogger } from '../infra/logger.js';
import { buildService } from './composition.js';
import { rehearseOrderFlows, type RehearsalCall } from './warmUpFlow.js';

/**
 * Tables whose rows the rehearsal copies: the applied migrations and the inline read models' list (so its
 * service migrates and catches up nothing), the row statements' rewrites, and the reference data an order
 * is placed and priced with. Every other table starts empty: the rehearsal never sees a real user's data.
 */
const COPIED_TABLES = [
  'kysely_migration',
  'kysely_migration_lock',
  'inline_projections',
  'es_row_statements',
  'cities',
  'exchange_rates',
  'payment_methods',
  'payment_forms',
];

/** Settings naming an outside provider: without them every port is its simulator. */
const OUTSIDE_PROVIDER =
  /(_PROVIDER_URL|_PROVIDER_KEY|^MAPS_API_KEY|^TWILIO_ACCOUNT_SID|^SMTP_URL|^GOOGLE_APPLICATION_CREDENTIALS)$/;

/**
 * The rehearsal's settings: the service's own, but no outside provider, no NATS, no limits on its own
 * sign-ins, no log lines, a super admin of its own, and a signing secret of its own, so that no token it
 * issues would mean anything to the real service.
 */
const rehearsalConfig = (config: Config, admin: { email: string; password: string }): Config => ({
  ...config,
  ...Object.fromEntries(Object.keys(config).flatMap((k) => (OUTSIDE_PROVIDER.test(k) ? [[k, undefined]] : []))),
  NATS_URL: undefined,
  LOG_LEVEL: 'silent',
  OTP_RATE_LIMIT: false,
  ADMIN_BOOTSTRAP_EMAIL: admin.email,
  ADMIN_BOOTSTRAP_PASSWORD: admin.password,
  JWT_SECRET: randomBytes(32).toString('base64url'),
});

/** The session as a pool of one connection that ends with it. */
const sessionPool = (session: SqlClient): SqlPool => ({
  ...onOneConnection(session, 'postgres'),
  end: async () => session.release(),
});

const overSocket =
  (socketPath: string): RehearsalCall =>
  (method, path, token, body) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        {
          socketPath,
          method,
          path,
          headers: {
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(payload ? { 'content-type': 'application/json' } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });

/**
 * The start-up warm-up (docs/decisions/0058-a-start-up-rehearsal.md). A process just started runs its first
 * requests at a fraction of its speed: V8 compiles the hot paths as they run, and each new PostgreSQL session
 * plans its statements. Before /ready says yes, the service rehearses `flows` order flows through a second
 * instance of itself, over HTTP on a Unix socket in a private directory, on one new session whose tables
 * are temporary copies of the real ones (infra/db/shadowTables.ts): the same code, none of the data.
 * Nothing it writes is seen by another session or outlives it, no outside provider is called (its ports
 * are simulators) and nothing is published (its bus is its own). An EventStoreDB log lies outside
 * PostgreSQL, so it is never rehearsed on.
 */
export const warmUp = async (options: {
  config: Config;
  pool: SqlPool;
  flows: number;
  signal: AbortSignal;
}): Promise<number> => {
  const { config, pool, flows, signal } = options;
  if (config.ESDB_URL || !pool.openSession) throw new Error('the event log is not in PostgreSQL');
  const session = await pool.openSession();
  try {
    await shadowTables(session, COPIED_TABLES);
  } catch (err) {
    session.release();
    throw err;
  }
  const admin = { email: 'warm-up@rehearsal.invalid', password: randomBytes(18).toString('base64url') };
  const service = await buildService({
    config: rehearsalConfig(config, admin),
    pool: sessionPool(session),
    roles: ['api'],
    logger: createLogger('silent'),
    bus: createInProcessBus(),
  }).catch((err: unknown) => {
    session.release();
    throw err;
  });
  const dir = mkdtempSync(join(tmpdir(), 'warm-up-'));
  const socketPath = join(dir, 'http.sock');
  const server: Server = createServer(service.app);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, resolve);
    });
    return await rehearseOrderFlows(
      overSocket(socketPath),
      {
        admin,
        async codeSentTo(phone) {
          const sent = await service.ctx.outbox.list(phone);
          const code = sent.at(-1)?.data?.code;
          if (typeof code !== 'string') throw new Error('the rehearsal sent no code');
          return code;
        },
      },
      flows,
      signal,
    );
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
    await service.stop();
  }
};
