import { appendToStream } from '../../infra/eventStore/port.js';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { runCutoff } from '../../commands/settlement/cutoff.js';
import { loadState } from '../../commands/handle.js';
import { payeesOf } from '../../commands/settlement/payees.js';
import { openStore } from '../../app/composition.js';
import type { AppContext } from '../../app/context.js';
import {
  PAYEES_STREAM,
  receiptStream,
  type PayoutAttemptedData,
  type PayoutOrderCreatedData,
  type ReceiptIssuedData,
} from '../../domain/settlement/events.js';
import { walletStream, type LedgerEntryRecordedData, type PayoutAccountSetData } from '../../domain/wallet/events.js';
import { walletDecider } from '../../domain/wallet/wallet.js';
import type { EventStore, NewEvent } from '../../infra/eventStore/port.js';
import { receiptAsOf } from '../../api/admin/settlements/receiptRoutes.js';
import { startTestService, type TestService } from '../support/testService.js';
import { cpuMs, embeddedPostgresCpu, postgresCpu } from './serviceProcess.js';
import { countStatements } from './statementCounter.js';

/**
 * `npm run bench -- settlement`: a cutoff over DRIVERS drivers with ENTRIES ledger entries each (the issue
 * asks 10,000 × 100 = 1M; smaller sizes through BENCH_SETTLEMENT_DRIVERS / _ENTRIES), receipts per second,
 * total time and the process's memory high-water mark; and the as-of fold of one receipt with
 * FOLD_EVENTS events (p50/p99). Embedded (a temporary embedded PostgreSQL) and on PostgreSQL when it answers
 * (BENCH_SETTLEMENT_BACKENDS picks one).
 * The ledger is seeded straight into the event store (the wallet's LedgerEntryRecorded and
 * PayoutAccountSet events); the clock starts once the payees' catch-up has enrolled every driver, as it
 * enrolls the drivers whose accounts were set before the register existed (docs/decisions/0055).
 * `--idle` runs only the comparison of idle payees with short and long histories (docs/decisions/0098).
 */
const DRIVERS = Number(process.env.BENCH_SETTLEMENT_DRIVERS ?? 10_000);
const ENTRIES = Number(process.env.BENCH_SETTLEMENT_ENTRIES ?? 100);
const FOLD_EVENTS = Number(process.env.BENCH_SETTLEMENT_FOLD_EVENTS ?? 1000);
const FOLD_SAMPLES = 200;
/** `embedded`, `postgres` or both (default): the full size takes long embedded. */
const BACKENDS = (process.env.BENCH_SETTLEMENT_BACKENDS ?? 'embedded,postgres').split(',');
const DEFAULT_PG = 'postgres://postgres@127.0.0.1:5432/test';

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

const withEnv = async (vars: Record<string, string | undefined>, f: () => Promise<void>) => {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const set = (v: Record<string, string | undefined>) => {
    for (const [k, val] of Object.entries(v))
      if (val === undefined) delete process.env[k];
      else process.env[k] = val;
  };
  set(vars);
  try {
    await f();
  } finally {
    set(saved);
  }
};

/** `drivers` payees from driver id `first` + 1 on, each with `entries` deliveries' entries (their orders' figures carried). */
const seed = async (
  t: TestService,
  drivers = DRIVERS,
  entries = ENTRIES,
  first = 1_000_000,
  store: EventStore = t.service.ctx.store,
) => {
  const at = new Date('2026-11-23T12:00:00Z').toISOString();
  for (let d = 1; d <= drivers; d++) {
    const driverId = first + d;
    const account: PayoutAccountSetData = {
      driverId,
      userId: driverId,
      method: 'PAGO_MOVIL',
      bankCode: '0102',
      idNumber: `V${driverId}1`,
      phone: '04140000000',
      accountNumber: null,
      accountType: null,
      otpVerified: false,
      at,
    };
    const events: NewEvent[] = [{ eventId: randomUUID(), type: 'PayoutAccountSet', data: account }];
    let balance = 0;
    for (let i = 0; i < entries; i++) {
      const entryId = randomUUID();
      const cash = i % 10 === 9;
      const amountCents = cash ? 150 : 900 + (i % 7) * 10;
      balance += cash ? -amountCents : amountCents;
      const entry: LedgerEntryRecordedData = {
        driverId,
        entryId,
        type: cash ? 'CASH_COMMISSION_DEBT' : 'ORDER_EARNING',
        direction: cash ? 'DEBIT' : 'CREDIT',
        amountCents,
        balanceAfterCents: balance,
        orderId: d * 10_000 + i,
        receiptId: null,
        exchangeRateAmount: '36.50',
        description: '',
        causeId: entryId,
        adminId: null,
        at,
        orderFigures: { priceCents: 1500, commissionCents: 150, deliveredAt: at },
      };
      events.push({ eventId: entryId, type: 'LedgerEntryRecorded', data: entry });
    }
    // In slices: one append of thousands of events would be one statement the size of the history.
    for (let i = 0; i < events.length; i += 500)
      await appendToStream(store, walletStream(driverId), events.slice(i, i + 500), {
        expectedRevision: i === 0 ? 'no_stream' : i - 1,
      });
  }
};

/**
 * Statistics for the tables just seeded: a server without autovacuum (the shared test server runs without)
 * plans every stream read of a never-analysed events table of millions of rows as a bitmap scan of thousands
 * of rows, JIT-compiled, which no database in service meets.
 */
const analyzed = (t: TestService) => t.service.ctx.pool.query('ANALYZE');

/** The payees' catch-up enrolls on its own schedule; a benchmark may poll. */
const enrolled = async (t: TestService, drivers = DRIVERS) => {
  while ((await payeesOf(t.service.ctx.store)).length < drivers) await new Promise((r) => setTimeout(r, 1000));
};

const foldBench = async (t: TestService) => {
  const { store } = t.service.ctx;
  const receiptId = randomUUID();
  const at = new Date().toISOString();
  // Past any record id the cutoff minted from the sequence.
  const recordId = 1_000_000_000;
  const issued: ReceiptIssuedData = {
    receiptId,
    recordId,
    receiptNumber: 'BENCH-1',
    fiscalPeriod: '2026-11',
    driverId: 1,
    cityId: null,
    cutoffFrom: at,
    cutoffTo: at,
    ivaPrc: 16,
    entryIds: [],
    lines: [],
    totals: {
      subtotalCents: 0,
      discountCents: 0,
      ordersTotalCents: 0,
      commissionCents: 0,
      netCents: 1000,
      payableCents: 1000,
      netBsCents: 36500,
      remunerationBaseCents: 0,
      ivaCents: 0,
      remunerationTotalCents: 0,
    },
    beneficiary: {
      name: 'Bench',
      method: 'PAGO_MOVIL',
      idNumber: 'V1',
      bankCode: '0102',
      account: '0414',
      accountType: null,
    },
    issuedAt: at,
  };
  const order: PayoutOrderCreatedData = {
    receiptId,
    payoutOrderId: 'o1',
    recordId,
    idempotencyKey: 'k1',
    method: 'PAGO_MOVIL',
    provider: 'bench',
    amountCents: 1000,
    amountBsCents: 36500,
    retry: null,
    at,
  };
  const events: NewEvent[] = [
    { eventId: randomUUID(), type: 'ReceiptIssued', data: issued },
    { eventId: randomUUID(), type: 'PayoutOrderCreated', data: order },
  ];
  for (let i = events.length; i < FOLD_EVENTS; i++) {
    const attempt: PayoutAttemptedData = {
      receiptId,
      payoutOrderId: 'o1',
      result: 'ERROR',
      providerCode: null,
      transactionId: null,
      reference: null,
      error: 'timeout',
      synchronous: true,
      source: 'provider',
      at,
    };
    events.push({ eventId: randomUUID(), type: 'PayoutAttempted', data: attempt });
  }
  await appendToStream(store, receiptStream(receiptId), events, { expectedRevision: 'no_stream' });
  const asOf = new Date(Date.now() + 60_000);
  const samples: number[] = [];
  for (let i = 0; i < FOLD_SAMPLES; i++) {
    const started = performance.now();
    await receiptAsOf(t.service.ctx, receiptId, asOf);
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  console.log(
    `  as-of fold of a receipt with ${FOLD_EVENTS} events: p50 ${percentile(samples, 50).toFixed(1)} ` +
      `ms, p99 ${percentile(samples, 99).toFixed(1)} ms (${FOLD_SAMPLES} samples)`,
  );
};

const bench = async (label: string) => {
  // The scheduled cutoff, due whenever the bench runs past the configured time, would share the drivers
  // with the run measured: it looks once a day here.
  const t = await startTestService({ env: { SETTLEMENT_SCHEDULER_MS: String(24 * 3600_000) } });
  try {
    console.log(`\n${label}: ${DRIVERS} drivers × ${ENTRIES} entries = ${DRIVERS * ENTRIES} ledger entries`);
    const seedStarted = performance.now();
    await seed(t);
    await analyzed(t);
    const seeded = performance.now();
    await enrolled(t);
    console.log(
      `  seeded in ${((seeded - seedStarted) / 1000).toFixed(1)} s, ` +
        `payees enrolled by the catch-up in ${((performance.now() - seeded) / 1000).toFixed(1)} s`,
    );
    let highWater = process.memoryUsage().rss;
    const sampler = setInterval(() => (highWater = Math.max(highWater, process.memoryUsage().rss)), 100);
    const started = performance.now();
    const receipts = await runCutoff(t.service.ctx);
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    console.log(
      `  cutoff: ${receipts.length} receipts in ${seconds.toFixed(1)} s, ` +
        `${(receipts.length / seconds).toFixed(0)} receipts/s, ${((seconds * 1000) / DRIVERS).toFixed(1)} ms per driver, ` +
        `rss high-water ${mb(highWater)}`,
    );
    // Every payee is visited whether or not the wallet moved: what a run costs when nothing did.
    const idleStarted = performance.now();
    const none = await runCutoff(t.service.ctx);
    const idle = (performance.now() - idleStarted) / 1000;
    console.log(
      `  cutoff again, nothing new: ${none.length} receipts in ${idle.toFixed(1)} s, ` +
        `${((idle * 1000) / DRIVERS).toFixed(1)} ms per driver`,
    );
    await foldBench(t);
  } finally {
    await t.stop();
  }
};

/** The run's context with only `group` on the payees' register: a cutoff over those payees alone. */
const onlyPayees = (ctx: AppContext, group: ReadonlySet<number>): AppContext => {
  const store = new Proxy(ctx.store, {
    get(target, prop) {
      if (prop === 'readStream')
        return async (...args: Parameters<EventStore['readStream']>) => {
          const events = await target.readStream(...args);
          return args[0] === PAYEES_STREAM
            ? events.filter((e) => group.has((e.data as { driverId: number }).driverId))
            : events;
        };
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as EventStore;
  return { ...ctx, store };
};

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/**
 * `--idle`: what a cutoff costs per payee whose books closed and whose wallet has not moved since, for
 * wallets of IDLE_ENTRIES sizes (default 100 and 2,000 entries) of IDLE_PAYEES payees each (default 1,000),
 * in one service: every group is seeded and settled once (its period closes), then idle cutoffs over each
 * group alone take turns, IDLE_ROUNDS times. Per payee: wall time, this process's CPU and its database's
 * PostgreSQL backends' CPU (both from /proc), and the SQL statements the cutoff sent, medians over the rounds;
 * and the machine's load. Then, for comparison, what reading a wallet whole costs at each size.
 */
const IDLE_PAYEES = Number(process.env.BENCH_SETTLEMENT_IDLE_PAYEES ?? 1000);
const IDLE_ENTRIES = (process.env.BENCH_SETTLEMENT_IDLE_ENTRIES ?? '100,2000').split(',').map(Number);
const IDLE_ROUNDS = Number(process.env.BENCH_SETTLEMENT_IDLE_ROUNDS ?? 7);
const WHOLE_READS = 200;

const idleBench = async (label: string) => {
  const t = await startTestService({ env: { SETTLEMENT_SCHEDULER_MS: String(24 * 3600_000) } });
  try {
    const ctx = t.service.ctx;
    const database = new URL(t.databaseUrl ?? DEFAULT_PG).pathname.slice(1);
    console.log(
      `\n${label}: idle cutoffs, ${IDLE_PAYEES} payees per group, wallets of ${IDLE_ENTRIES.join(' / ')} entries`,
    );
    console.log(`  load average before: ${load()}`);
    const groups = IDLE_ENTRIES.map((entries, i) => {
      const first = 2_000_000 + i * 100_000;
      return {
        entries,
        first,
        ids: new Set(Array.from({ length: IDLE_PAYEES }, (_, d) => first + d + 1)),
        wall: [] as number[],
        cpu: [] as number[],
        pg: [] as number[],
        statements: [] as number[],
      };
    });
    const seedStarted = performance.now();
    // Through a store that applies no read model in its appends: the cutoff reads streams only, and a
    // history of millions of entries seeds in minutes instead of hours.
    const bare = await openStore(ctx.config, ctx.pool);
    for (const g of groups) await seed(t, IDLE_PAYEES, g.entries, g.first, bare);
    await enrolled(t, IDLE_PAYEES * groups.length);
    await analyzed(t);
    console.log(`  seeded and enrolled in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s`);
    for (const g of groups) {
      const started = performance.now();
      const receipts = await runCutoff(onlyPayees(ctx, g.ids));
      console.log(
        `  first cutoff, ${g.entries} entries: ${receipts.length} receipts in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    }
    // The asynchronous read models catch up on the seeded log first: their work would count as the cutoff's.
    await Promise.all(['reports', 'notifications'].map((p) => ctx.caughtUp(p)));
    const postgres = () => (process.env.DATABASE_URL ? postgresCpu(database) : embeddedPostgresCpu(process.pid));
    // Round 0 warms up and is not counted.
    for (let round = 0; round <= IDLE_ROUNDS; round++) {
      for (const g of groups) {
        const pg = postgres();
        const cpu = cpuMs(process.pid);
        const started = performance.now();
        const { result: none, statements } = await countStatements(() => runCutoff(onlyPayees(ctx, g.ids)));
        const wall = (performance.now() - started) / IDLE_PAYEES;
        const used = (cpuMs(process.pid) - cpu) / IDLE_PAYEES;
        const pgUsed = pg.stop().ms / IDLE_PAYEES;
        if (none.length > 0) throw new Error(`an idle cutoff issued ${none.length} receipts`);
        if (round === 0) continue;
        g.wall.push(wall);
        g.cpu.push(used);
        g.pg.push(pgUsed);
        g.statements.push(statements / IDLE_PAYEES);
      }
    }
    for (const g of groups)
      console.log(
        `  idle, ${String(g.entries).padStart(5)} entries: per payee ${median(g.wall).toFixed(2)} ms wall, ` +
          `${median(g.cpu).toFixed(2)} ms CPU (service), ${median(g.pg).toFixed(2)} ms CPU (PostgreSQL), ` +
          `${median(g.statements).toFixed(2)} statements ` +
          `[rounds: ${g.cpu.map((c) => c.toFixed(2)).join(' ')}]`,
      );
    const [small, large] = [groups[0], groups.at(-1)!];
    const both = (g: (typeof groups)[number]) => median(g.cpu) + median(g.pg);
    console.log(
      `  ratio ${large.entries}/${small.entries} entries: CPU ${(both(large) / both(small)).toFixed(2)}× ` +
        `(service ${(median(large.cpu) / median(small.cpu)).toFixed(2)}×), wall ${(median(large.wall) / median(small.wall)).toFixed(2)}×`,
    );
    // What a whole read costs: the cutoff's before the closes, and every delivery's still (docs/decisions/0104).
    for (const g of groups) {
      const sample = [...g.ids].slice(0, WHOLE_READS);
      const pg = postgres();
      const cpu = cpuMs(process.pid);
      const started = performance.now();
      for (const id of sample) await loadState(ctx.store, walletStream(id), walletDecider);
      const wall = (performance.now() - started) / sample.length;
      const used = (cpuMs(process.pid) - cpu + pg.stop().ms) / sample.length;
      console.log(
        `  whole read of a wallet, ${String(g.entries).padStart(5)} entries: ${wall.toFixed(2)} ms wall, ` +
          `${used.toFixed(2)} ms CPU (service and PostgreSQL), over ${sample.length} wallets`,
      );
    }
    console.log(`  load average after: ${load()}`);
  } finally {
    await t.stop();
  }
};

/** `--idle` runs the idle comparison alone; without flags, the run and the idle comparison. */
export const run = async (flags: string[] = []): Promise<void> => {
  const parts = flags.includes('--idle') ? [idleBench] : [bench, idleBench];
  for (const part of parts) {
    if (BACKENDS.includes('embedded'))
      await withEnv({ DATABASE_URL: undefined, NATS_URL: undefined }, () =>
        part('embedded (temporary embedded PostgreSQL)'),
      );
    if (!BACKENDS.includes('postgres')) continue;
    await withEnv({ DATABASE_URL: process.env.DATABASE_URL ?? DEFAULT_PG, NATS_URL: undefined }, async () => {
      try {
        await part('PostgreSQL');
      } catch (err) {
        console.log(`\nPostgreSQL: failed or skipped (${(err as Error).message})`);
      }
    });
  }
};
