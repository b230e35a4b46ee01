import { performance } from 'node:perf_hooks';
import { signInClient, signInDriver } from '../support/actors.js';
import { call, CARACAS, orderBody } from '../support/orderFlows.js';
import { startTestService, type TestService } from '../support/testService.js';
import { profileCalls } from './callProfile.js';

/**
 * Full order flows over HTTP against the real service: create → offer → accept → start → arrived (with the
 * position) → deliver, each flow by its own client with a driver of its worker. WORKERS flows run side by
 * side; every call's latency is recorded. Once on the embedded default (PGlite in memory), once on
 * PostgreSQL (DATABASE_URL, or the local server).
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

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

const measure = async (t: TestService) => {
  const api = call(t);
  const latencies: Record<Step, number[]> = { create: [], offer: [], accept: [], start: [], arrived: [], deliver: [] };
  const statements: Record<Step, number[]> = { create: [], offer: [], accept: [], start: [], arrived: [], deliver: [] };
  const settleMs: Record<Step, number[]> = { create: [], offer: [], accept: [], start: [], arrived: [], deliver: [] };
  profileCalls(t.service.ctx, t.service.server!, (c) => {
    const step = stepOf(c.method, c.url);
    if (!step) return;
    statements[step].push(c.statements);
    settleMs[step].push(c.settleMs);
  });
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
      driver: await signInDriver(t, { liters: 10_000, online: true, lat: CARACAS.latitude + 0.001 * w, lng: CARACAS.longitude }),
      clients: await Promise.all(Array.from({ length: FLOWS_PER_WORKER }, () => signInClient(t))),
    })),
  );
  const started = performance.now();
  await Promise.all(
    workers.map(async ({ driver, clients }) => {
      for (const client of clients) {
        const order = await timed('create', () => api.post('/orders', client.token, orderBody({ litersRequested: 40 })), 201);
        const bid = await timed('offer', () => api.post(`/orders/${order.order.id}/counter-offer`, driver.token, { driverGross: 23.5 }), 201);
        const accepted = await timed('accept', () => api.post(`/orders/offers/${bid.offer.id}/accept`, client.token), 200);
        await timed('start', () => api.post(`/orders/${order.order.id}/start`, driver.token), 200);
        await timed('arrived', () => api.post(`/orders/${order.order.id}/arrived`, driver.token, { latitude: CARACAS.latitude + 0.001, longitude: CARACAS.longitude }), 200);
        await timed('deliver', () => api.post(`/orders/${order.order.id}/deliver`, driver.token, { actualLiters: 40, deliveryPin: accepted.order.delivery_pin }), 200);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { flows: WORKERS * FLOWS_PER_WORKER, seconds, latencies, statements, settleMs };
};

const report = (label: string, r: Awaited<ReturnType<typeof measure>>) => {
  console.log(`\n${label}: ${r.flows} flows (${WORKERS} concurrent) in ${r.seconds.toFixed(1)} s = ${(r.flows / r.seconds).toFixed(1)} flows/s`);
  console.log('call       p50 ms   p99 ms   SQL/call (min–max)   settle p50 ms');
  for (const step of STEPS) {
    const sorted = [...r.latencies[step]].sort((a, b) => a - b);
    const sql = [...r.statements[step]].sort((a, b) => a - b);
    const sqlMean = sql.reduce((a, b) => a + b, 0) / Math.max(1, sql.length);
    const waited = [...r.settleMs[step]].sort((a, b) => a - b);
    console.log(
      `${step.padEnd(9)} ${percentile(sorted, 50).toFixed(1).padStart(7)}  ${percentile(sorted, 99).toFixed(1).padStart(7)}   ${sqlMean.toFixed(1).padStart(5)} (${sql[0] ?? 0}–${sql.at(-1) ?? 0})`.padEnd(48) +
        percentile(waited, 50).toFixed(1).padStart(7),
    );
  }
};

const onTarget = async (label: string, databaseUrl: string | undefined) => {
  const saved = process.env.DATABASE_URL;
  if (databaseUrl) process.env.DATABASE_URL = databaseUrl;
  else delete process.env.DATABASE_URL;
  let t: TestService | undefined;
  try {
    t = await startTestService({ env: { OFFICIAL_RATE_VES: '36.5', APP_ENV: 'test' } });
    report(label, await measure(t));
  } finally {
    await t?.stop();
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
  }
};

export const run = async (): Promise<void> => {
  await onTarget('embedded (PGlite in memory, in-process bus)', undefined);
  await onTarget('PostgreSQL', process.env.DATABASE_URL ?? DEFAULT_PG);
};
