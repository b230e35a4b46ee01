import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { signInClient, signInDriver } from '../support/actors.js';
import { call, CARACAS, orderBody } from '../support/orderFlows.js';
import { freshDatabaseUrl, type TestService } from '../support/testService.js';
import {
  cpuMs,
  embeddedPostgresCpu,
  overHttp,
  postgresCpu,
  startServiceProcess,
  untilReady,
  type ServiceProcess,
} from './serviceProcess.js';

/**
 * Full order flows over HTTP against the service running in processes of its own, as apps meet it:
 * create → offer → accept → start → arrived (with the position) → deliver, each flow by its own client with
 * a driver of its worker. WORKERS flows run side by side. Per call: p50/p99 latency and SQL statements; per
 * flow: CPU of the service and of PostgreSQL (from /proc), statements, write transactions, WAL and new backends; and
 * the sustained throughput, counted until every projector has caught up. Once on the embedded default
 * (the embedded PostgreSQL, a temporary cluster), once on PostgreSQL (DATABASE_URL, or the local server).
 *
 * Each setting is measured twice in the same processes, cold and then warm. The embedded run never inherits
 * DATABASE_URL or NATS_URL. `npm run bench -- orders --split` also runs PostgreSQL with the API and the
 * projectors in separate processes (--role api and --role projector) and gives the CPU per role; `--postgres`
 * skips the embedded run; BENCH_ROOT=<checkout> measures another build (see serviceProcess.ts).
 */

const WORKERS = Number(process.env.BENCH_WORKERS ?? 8);
const FLOWS_PER_WORKER = Number(process.env.BENCH_FLOWS ?? 15);
const DEFAULT_PG = 'postgres://postgres@127.0.0.1:5432/test';
const STEPS = ['create', 'offer', 'accept', 'start', 'arrived', 'deliver'] as const;
type Step = (typeof STEPS)[number];

/** Which measured call a request is, by its route; sign-ins and other setup count for none. */
const stepOf = (method: string, url: string): Step | null => {
  if (method !== 'POST') return null;
  if (/^\/api\/v1\/orders$/.test(url)) return 'create';
  if (/\/counter-offer$/.test(url)) return 'offer';
  if (/^\/api\/v1\/orders\/offers\/\d+\/accept$/.test(url)) return 'accept';
  const m = /^\/api\/v1\/orders\/\d+\/(start|arrived|deliver)$/.exec(url);
  return m ? (m[1] as Step) : null;
};

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
const byStep = <T>(make: () => T): Record<Step, T> =>
  Object.fromEntries(STEPS.map((s) => [s, make()])) as Record<Step, T>;

interface Ready {
  projectionLagMs: number | null;
  positions: Record<string, number>;
}
const readyOf = async (t: TestService): Promise<Ready> => (await t.request('GET', '/ready')).body as Ready;

/** Until the projectors have applied everything: no pending event, positions unchanged across a moment. */
const caughtUp = async (t: TestService): Promise<void> => {
  let previous = '';
  for (;;) {
    const r = await readyOf(t);
    const now = JSON.stringify(r.positions);
    if (r.projectionLagMs === 0 && now === previous) return;
    previous = now;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/**
 * Counters of the measured database around a pass. pg_stat_database reaches the view when a backend reports,
 * up to 10 s after its last transaction when it then stays idle (PostgreSQL 15), so what must be exact is
 * read from the server's own clocks instead: write transactions from the transaction ids handed out, and the
 * WAL from its insert position. Both are the whole server's (quiet machines only); this call's own id is
 * taken off.
 */
const pgCounters = async (url: string, database: string) => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    // The session count is a statistic: it waits for the view (new backends are rare; a second is enough).
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const { rows } = await c.query<{ sessions: string; xid: string; wal: string }>(
      `SELECT sessions, pg_current_xact_id()::text::bigint AS xid, pg_current_wal_insert_lsn() - '0/0' AS wal
       FROM pg_stat_database WHERE datname = $1`,
      [database],
    );
    const r = rows[0];
    return { sessions: Number(r.sessions), xid: Number(r.xid), walBytes: Number(r.wal) };
  } finally {
    await c.end();
  }
};

const flows = async (t: TestService, perWorker = FLOWS_PER_WORKER) => {
  const api = call(t);
  const latencies = byStep<number[]>(() => []);
  const timed = async (step: Step, run: () => Promise<{ status: number; body: any }>, expected: number) => {
    const started = performance.now();
    const r = await run();
    latencies[step].push(performance.now() - started);
    if (r.status !== expected) throw new Error(`${step} answered ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  // Sign-ins are setup, not measured: one driver per worker, one client per flow (one active order each).
  const workers = await Promise.all(
    Array.from({ length: WORKERS }, async (_, w) => ({
      driver: await signInDriver(t, {
        liters: 10_000,
        online: true,
        lat: CARACAS.latitude + 0.001 * w,
        lng: CARACAS.longitude,
      }),
      clients: await Promise.all(Array.from({ length: perWorker }, () => signInClient(t))),
    })),
  );
  return {
    latencies,
    run: () =>
      Promise.all(
        workers.map(async ({ driver, clients }) => {
          for (const client of clients) {
            const order = await timed(
              'create',
              () => api.post('/orders', client.token, orderBody({ litersRequested: 40 })),
              201,
            );
            const bid = await timed(
              'offer',
              () => api.post(`/orders/${order.order.id}/counter-offer`, driver.token, { driverGross: 23.5 }),
              201,
            );
            const accepted = await timed(
              'accept',
              () => api.post(`/orders/offers/${bid.offer.id}/accept`, client.token),
              200,
            );
            await timed('start', () => api.post(`/orders/${order.order.id}/start`, driver.token), 200);
            await timed(
              'arrived',
              () =>
                api.post(`/orders/${order.order.id}/arrived`, driver.token, {
                  latitude: CARACAS.latitude + 0.001,
                  longitude: CARACAS.longitude,
                }),
              200,
            );
            await timed(
              'deliver',
              () =>
                api.post(`/orders/${order.order.id}/deliver`, driver.token, {
                  actualLiters: 40,
                  deliveryPin: accepted.order.delivery_pin,
                }),
              200,
            );
          }
        }),
      ),
  };
};

/** One pass of WORKERS × FLOWS_PER_WORKER flows, with fresh actors (their sign-ins are not measured). */
const pass = async (label: string, processes: ServiceProcess[], database?: { url: string; name: string }) => {
  const t = overHttp(processes[0].port);
  const { latencies, run } = await flows(t);
  await caughtUp(t);
  await Promise.all(processes.map((p) => p.reset()));
  const before = database ? await pgCounters(database.url, database.name) : null;
  const cpuBefore = processes.map((p) => cpuMs(p.pid));
  // The embedded cluster's processes are the service's children; the shared server's backends are named by database.
  const pgCpu = database ? postgresCpu(database.name) : embeddedPostgresCpu(processes[0].pid);
  let maxLagMs = 0;
  let sampling = true;
  const lagSampler = (async () => {
    while (sampling) {
      maxLagMs = Math.max(maxLagMs, (await readyOf(t)).projectionLagMs ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  const started = performance.now();
  await run();
  const answeredIn = (performance.now() - started) / 1000;
  await caughtUp(t);
  const seconds = (performance.now() - started) / 1000;
  sampling = false;
  await lagSampler;
  const cpu = processes.map((p, i) => cpuMs(p.pid) - cpuBefore[i]);
  const postgres = pgCpu?.stop();
  const after = database ? await pgCounters(database.url, database.name) : null;
  const probed = await Promise.all(processes.map((p) => p.stats()));

  const n = WORKERS * FLOWS_PER_WORKER;
  const statements = byStep<number[]>(() => []);
  const writes = byStep<number[]>(() => []);
  for (const c of probed.flatMap((p) => p.calls)) {
    const step = stepOf(c.method, c.url);
    if (step) statements[step].push(c.statements);
    if (step) writes[step].push(c.writes);
  }
  const total = probed.reduce((a, p) => a + p.statements, 0);
  console.log(
    `\n${label}: ${n} flows (${WORKERS} concurrent); answered in ${answeredIn.toFixed(1)} s, ` +
      `caught up in ${seconds.toFixed(1)} s = ${(n / seconds).toFixed(1)} flows/s sustained`,
  );
  console.log('call       p50 ms   p99 ms   SQL/call (min–max)   write tx/call');
  for (const step of STEPS) {
    const sorted = [...latencies[step]].sort((a, b) => a - b);
    const sql = [...statements[step]].sort((a, b) => a - b);
    const mean = sql.reduce((a, b) => a + b, 0) / Math.max(1, sql.length);
    console.log(
      `${step.padEnd(9)} ${percentile(sorted, 50).toFixed(1).padStart(7)}  ` +
        `${percentile(sorted, 99).toFixed(1).padStart(7)}   ` +
        `${mean.toFixed(1).padStart(5)} (${sql[0] ?? 0}–${sql.at(-1) ?? 0})`.padEnd(22) +
        `${(writes[step].reduce((a, b) => a + b, 0) / Math.max(1, writes[step].length)).toFixed(2).padStart(6)}`,
    );
  }
  console.log('per flow:');
  processes.forEach((p, i) =>
    console.log(
      `  service ${p.roles.length ? `(--role ${p.roles.join(',')})` : '(all roles)'}: ` +
        `${(cpu[i] / n).toFixed(1)} core-ms, ${(probed[i].statements / n).toFixed(1)} SQL statements`,
    ),
  );
  if (postgres)
    console.log(
      `  PostgreSQL ${database ? 'backends' : '(embedded cluster, all its processes)'}: ` +
        `${(postgres.ms / n).toFixed(1)} core-ms (${postgres.backends} processes seen)`,
    );
  const serviceMs = cpu.reduce((a, b) => a + b, 0);
  console.log(
    `  total: ${((serviceMs + (postgres?.ms ?? 0)) / n).toFixed(1)} core-ms, ${(total / n).toFixed(1)} SQL statements`,
  );
  const outside = probed.reduce((a, p) => a + p.asyncWrites!, 0);
  const runner = probed.reduce((a, p) => a + p.runnerWrites!, 0);
  if (!Number.isNaN(outside))
    console.log(
      `  write transactions outside calls (the asynchronous side; probe): ${(outside / n).toFixed(2)}, ` +
        `of the projection runner: ${(runner / n).toFixed(2)}, ` +
        `SQL statements outside calls: ${((total - probed.flatMap((p) => p.calls).reduce((a, c) => a + c.statements, 0)) / n).toFixed(1)}`,
    );
  if (before && after)
    console.log(
      `  write transactions (whole server): ${((after.xid - before.xid - 1) / n).toFixed(1)}, ` +
        `WAL (whole server): ${((after.walBytes - before.walBytes) / n / 1024).toFixed(1)} kB, ` +
        `new backends: ${((after.sessions - before.sessions) / n).toFixed(2)}`,
    );
  const failures = probed.reduce((a, p) => a + (p.failures ?? NaN), 0);
  if (!Number.isNaN(failures)) console.log(`  failed statements (conflicts, deadlocks): ${(failures / n).toFixed(2)}`);
  console.log(`  projections at most ${maxLagMs} ms behind (sampled every 200 ms)`);
};

/**
 * Two passes in the same processes: cold (the first flows a process serves once /ready says yes) and warm
 * (the same again).
 */
const measure = async (label: string, processes: ServiceProcess[], database?: { url: string; name: string }) => {
  await untilReady(processes[0].port);
  const pre = Number(process.env.BENCH_PREWARM ?? 0);
  if (pre > 0) {
    const f = await flows(overHttp(processes[0].port), pre);
    await f.run();
    await caughtUp(overHttp(processes[0].port));
  }
  await pass(`${label}, cold`, processes, database);
  await pass(`${label}, warm`, processes, database);
};

const onEmbedded = async () => {
  // Nothing inherited from the bench's environment: the embedded default, as `npm start` runs it.
  const service = await startServiceProcess({
    DATABASE_URL: '',
    NATS_URL: '',
    EMBEDDED_DB_DIR: 'memory://',
    OFFICIAL_RATE_VES: '36.5',
  });
  try {
    await measure('embedded (PostgreSQL from npm, temporary cluster; in-process bus)', [service]);
  } finally {
    await service.stop();
  }
};

const onPostgres = async (split: boolean) => {
  console.log(`PostgreSQL build: ${process.env.BENCH_ROOT ?? 'this checkout'}`);
  const saved = process.env.DATABASE_URL;
  process.env.DATABASE_URL = saved ?? DEFAULT_PG;
  const fresh = await freshDatabaseUrl();
  if (saved === undefined) delete process.env.DATABASE_URL;
  const name = new URL(fresh.url).pathname.slice(1);
  const env: Record<string, string> = { DATABASE_URL: fresh.url, OFFICIAL_RATE_VES: '36.5' };
  if (process.env.NATS_URL) env.NATS_URL = process.env.NATS_URL;
  const processes: ServiceProcess[] = [];
  try {
    if (split) {
      processes.push(await startServiceProcess(env, ['api']));
      processes.push(await startServiceProcess(env, ['projector']));
    } else processes.push(await startServiceProcess(env));
    await measure(split ? 'PostgreSQL, --role api and --role projector' : 'PostgreSQL', processes, {
      url: fresh.url,
      name,
    });
  } finally {
    for (const p of processes) await p.stop();
    await fresh.drop();
  }
};

/**
 * `--postgres` skips the embedded run (side-by-side comparisons of two builds on PostgreSQL); `--embedded` skips
 * the shared server's (its backends run outside the bench's process tree, so only the embedded run can be given
 * the machine's CPU first when others share it).
 */
export const run = async (flags: string[] = []): Promise<void> => {
  if (!flags.includes('--postgres')) await onEmbedded();
  if (flags.includes('--embedded')) return;
  await onPostgres(false);
  if (flags.includes('--split')) await onPostgres(true);
};
