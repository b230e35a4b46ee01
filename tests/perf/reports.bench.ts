import { performance } from 'node:perf_hooks';
import { formatInTimeZone } from 'date-fns-tz';
import { sql } from 'kysely';
import { addDays } from '../../api/admin/reports/reportQuery.js';
import { rebucket } from '../../projections/reports/dailyRollup.js';
import { signInAdmin } from '../support/actors.js';
import { startTestService, type TestService } from '../support/testService.js';

/**
 * `npm run bench -- reports` on PostgreSQL (DATABASE_URL, or the local server): BENCH_REPORT_ORDERS
 * (1,000,000) orders over 12 months in 10 cities, seeded in bulk straight into the report tables in creation order (a
 * tenth of them in the last 30 days, so that window holds 100,000 rows; the daily roll-ups built from them as a
 * new report time zone builds them), 20,000 clients, 2,000 drivers. Then
 * each list route's first page over the last 30 days, default order and the most expensive sort key
 * (p50/p99 over BENCH_REPORT_RUNS requests, from the request to the body's last byte), and the orders export of that
 * window as CSV and XLSX (rows/s, time to first byte, peak RSS over idle; the service runs in this process).
 */

const ORDERS = Number(process.env.BENCH_REPORT_ORDERS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_REPORT_RUNS ?? 20);
const CLIENTS = 20_000;
const DRIVERS = 2_000;
const FIRST_DRIVER = 1_000_001;
const DEFAULT_PG = 'postgres://postgres@127.0.0.1:5432/test';
const TZ = 'America/Caracas';
const SEED_CHUNK = 100_000;

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

const seed = async (t: TestService) => {
  const db = t.service.ctx.db;
  const started = performance.now();
  await sql`INSERT INTO users (phone, name, role)
    SELECT '+58412' || lpad(g::text, 7, '0'), 'Cliente ' || lpad(g::text, 5, '0'), 'CLIENT'
    FROM generate_series(1, ${CLIENTS}) g`.execute(db);
  const { rows } = await sql<{ first: number }>`SELECT min(id)::int AS first FROM users WHERE role = 'CLIENT'`.execute(
    db,
  );
  const firstClient = rows[0].first;
  await sql`INSERT INTO report_drivers (driver_id, name, phone, registered_at, status, kyc_state, kyc_approved_at,
    is_online, plate, capacity_liters, city_id,
      deliveries, own_cancellations, liters_delivered, gross_earnings_cents, commission_paid_cents, solidary_cents,
      balance_cents, rating_sum, ratings_count, incidents, last_activity_at)
    SELECT ${FIRST_DRIVER - 1} + g, 'Conductor ' || lpad(g::text, 4, '0'), '+58414' || lpad(g::text, 7, '0'),
    now() - interval '400 days', 'ACTIVE', 'APPROVED', now() - interval '390 days',
      g % 3 = 0, 'AB' || lpad(g::text, 5, '0'), 8000 + (g % 5) * 1000, (g % 10) + 1,
      400 + g % 100, g % 7, 800000 + g * 10, 1500000 + g * 100, 150000 + g * 10, 15000 + g, (g % 200) * 100 - 5000,
      (g % 5 + 1) * 300, 300, g % 9, now() - (g % 30) * interval '1 day'
    FROM generate_series(1, ${DRIVERS}) g`.execute(db);
  await sql`INSERT INTO report_driver_documents (driver_id, type, expires_at, recorded_at)
    SELECT ${FIRST_DRIVER - 1} + g, t, to_char(current_date + ((g * 37) % 400 - 30), 'YYYY-MM-DD'), now()
    FROM generate_series(1, ${DRIVERS}) g CROSS JOIN unnest(ARRAY['ID_FRONT', 'LICENSE', 'MEDICAL_CERT']) t
    WHERE t <> 'MEDICAL_CERT' OR g % 2 = 0`.execute(db);
  // The last tenth of the ids in the last 30 days, the rest over the 335 days before; ids and creation
  // times rise together, as the projector writes them, so a window's rows sit together on disk.
  const older = ORDERS - Math.floor(ORDERS / 10);
  for (let from = 1; from <= ORDERS; from += SEED_CHUNK) {
    const to = Math.min(ORDERS, from + SEED_CHUNK - 1);
    await sql`INSERT INTO report_orders (id, city_id, client_id, driver_id, status, origin, address, water_type,
      payment_method, payment_status,
        liters_requested, liters_delivered, liters_diff, base_price_cents, final_price_cents, driver_gross_cents,
        platform_revenue_cents, driver_solidary_cents,
        solidary_fund_cents, driver_receives_cents, client_pays_cents, promo_credit_cents, has_counter_offer,
        offers_count, best_offer_cents, offers_at_base_price,
        had_accepted_offer, rating, incidents, created_at, accepted_at, delivered_at, acceptance_minutes,
        delivery_minutes, ended_at, minutes_to_outcome,
        cancelled_by_role, cancelled_by_id, status_at_cancel, cancel_reason_code, cancel_reason, charged_before,
        refund_due_cents, recovered)
      SELECT g, (g % 10) + 1, ${firstClient} + (g % ${CLIENTS}),
      CASE WHEN assigned THEN ${FIRST_DRIVER} + (g % ${DRIVERS}) END, status,
        CASE WHEN g % 20 = 0 THEN 'remate' ELSE 'app' END, 'Calle ' || (g % 500) || ', casa ' || (g % 97),
        CASE WHEN g % 9 = 0 THEN 'INDUSTRIAL' ELSE 'POTABLE' END,
        CASE WHEN g % 4 = 0 THEN 'PAYPROV_DI' ELSE 'CASH_USD' END,
        CASE WHEN status = 'DELIVERED' THEN 'confirmed' ELSE 'pending' END,
        liters, CASE WHEN status = 'DELIVERED' THEN liters - (g % 7) * 10 END,
        CASE WHEN status = 'DELIVERED' THEN -(g % 7) * 10 END,
        base, CASE WHEN assigned THEN base + (g % 3) * 100 END, round(base * 0.9), base - round(base * 0.9),
        round(base * 0.009),
        round(base * 0.019), round(base * 0.891), base + round(base * 0.01), 0, g % 3 = 1, g % 4,
        CASE WHEN g % 4 > 0 THEN base END, CASE WHEN g % 4 > 0 THEN 1 ELSE 0 END,
        assigned, CASE WHEN status = 'DELIVERED' AND g % 3 = 0 THEN 1 + g % 5 END,
        CASE WHEN g % 50 = 0 THEN 1 ELSE 0 END,
        created_at, CASE WHEN assigned THEN created_at + (g % 12) * interval '1 minute' END,
        CASE WHEN status = 'DELIVERED' THEN created_at + (30 + g % 90) * interval '1 minute' END,
        CASE WHEN assigned THEN (g % 12)::float8 END,
        CASE WHEN status = 'DELIVERED' THEN (30 + g % 90 - g % 12)::float8 END,
        CASE WHEN status IN ('CANCELLED', 'EXPIRED') THEN created_at + (g % 60) * interval '1 minute' END,
        CASE WHEN status IN ('CANCELLED', 'EXPIRED') THEN (g % 60)::float8 END,
        CASE WHEN status = 'EXPIRED' THEN 'SYSTEM' WHEN status = 'CANCELLED'
          THEN (ARRAY['CLIENT', 'DRIVER', 'ADMIN'])[1 + g % 3] END, NULL,
        CASE WHEN status IN ('CANCELLED', 'EXPIRED') THEN 'BROADCASTING' END,
        CASE WHEN status = 'CANCELLED' THEN 'CLIENT_OTHER' END, NULL, false, 0, g % 11 = 0
      FROM (SELECT g, k, status, status IN ('DELIVERED', 'CONFIRMED')
        OR (status = 'CANCELLED' AND g % 2 = 0) AS assigned,
              500 + (g % 20) * 250 AS liters, 1000 + (g % 5000) AS base,
              CASE WHEN g > ${older}
                THEN now() - interval '30 days' + (g - ${older}) * (2592000.0 / ${ORDERS - older}) * interval '1 second'
                ELSE now() - interval '365 days' + g * (28944000.0 / ${older}) * interval '1 second' END AS created_at
            FROM (SELECT g, (g * 7919) % 100 AS k FROM generate_series(${from}::bigint, ${to}::bigint) g) a,
            LATERAL (SELECT CASE WHEN k < 70 THEN 'DELIVERED' WHEN k < 85 THEN 'CANCELLED' WHEN k < 95 THEN 'EXPIRED'
              ELSE 'CONFIRMED' END AS status) s) o`.execute(db);
    process.stdout.write(`\r  seeded ${to.toLocaleString('en')} orders`);
  }
  // The daily roll-up as a new report time zone builds it: from the rows just seeded.
  await rebucket(db);
  await sql`ANALYZE report_orders`.execute(db);
  await sql`ANALYZE report_daily`.execute(db);
  await sql`ANALYZE report_daily_drivers`.execute(db);
  await sql`ANALYZE report_driver_running`.execute(db);
  await sql`ANALYZE report_driver_cities`.execute(db);
  await sql`ANALYZE report_drivers`.execute(db);
  await sql`ANALYZE report_driver_documents`.execute(db);
  await sql`ANALYZE users`.execute(db);
  console.log(` in ${((performance.now() - started) / 1000).toFixed(0)} s`);
};

const ROUTES: { path: string; expensive: string }[] = [
  { path: 'orders', expensive: 'sort=client_name&direction=asc' },
  { path: 'orders/cancellations', expensive: 'sort=driver_name&direction=asc' },
  { path: 'orders/intents', expensive: 'sort=client_name&direction=asc' },
  { path: 'orders/operational', expensive: 'sort=avg_ticket_usd' },
  { path: 'drivers', expensive: 'sort=rating' },
  { path: 'drivers/documents', expensive: 'sort=traffic_light' },
  { path: 'drivers/performance', expensive: 'granularity=day' },
];

const timeLists = async (t: TestService, token: string, window: string) => {
  console.log(`\nfirst page over ${window} (${RUNS} requests each)`);
  console.log('route                                        p50 ms   p99 ms');
  for (const r of ROUTES) {
    for (const [label, extra] of [
      ['default', ''],
      [r.expensive, r.expensive],
    ] as const) {
      const query =
        r.path.startsWith('drivers') && r.path !== 'drivers/performance'
          ? extra
          : `${window}${extra ? `&${extra}` : ''}`;
      const ms: number[] = [];
      // Once through the test client (status and OpenAPI contract
      // checked), then timed to the last byte of the body only.
      const checked = await t.request('GET', `/api/v1/admin/reports/${r.path}?${query}`, { token });
      if (checked.status !== 200)
        throw new Error(`${r.path}?${query} answered ${checked.status}: ${JSON.stringify(checked.body)}`);
      for (let i = 0; i < RUNS; i++) {
        const started = performance.now();
        const res = await fetch(`${t.baseUrl}/api/v1/admin/reports/${r.path}?${query}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        await res.text();
        ms.push(performance.now() - started);
      }
      ms.sort((a, b) => a - b);
      console.log(
        `${`${r.path} ${label}`.padEnd(44)} ${percentile(ms, 50).toFixed(1).padStart(7)} ` +
          ` ${percentile(ms, 99).toFixed(1).padStart(7)}`,
      );
    }
  }
};

const timeExport = async (t: TestService, token: string, window: string, format: 'csv' | 'xlsx', rows: number) => {
  global.gc?.();
  const idleRss = process.memoryUsage().rss;
  let peakRss = idleRss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  const started = performance.now();
  const res = await fetch(`${t.baseUrl}/api/v1/admin/reports/orders/export?${window}&format=${format}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  let firstByteMs = 0;
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    if (bytes === 0) firstByteMs = performance.now() - started;
    bytes += chunk.length;
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const mb = (n: number) => (n / 1024 / 1024).toFixed(0);
  console.log(
    `${format.padEnd(5)} ${rows.toLocaleString('en')} rows, ${mb(bytes)} MB in ` +
      `${seconds.toFixed(1)} s = ${Math.round(rows / seconds).toLocaleString('en')} rows/s; ` +
      `first byte ${firstByteMs.toFixed(0)} ms; RSS idle ${mb(idleRss)} ` +
      `MB, peak ${mb(peakRss)} MB (+${mb(peakRss - idleRss)} MB)`,
  );
};

export const run = async (): Promise<void> => {
  process.env.DATABASE_URL ??= DEFAULT_PG;
  const t = await startTestService({ env: { LOG_LEVEL: 'silent' } });
  try {
    console.log(
      `PostgreSQL: ${ORDERS.toLocaleString('en')} orders over 12 months in 10 cities, ` +
        `${CLIENTS.toLocaleString('en')} clients, ${DRIVERS.toLocaleString('en')} drivers`,
    );
    await seed(t);
    const token = (await signInAdmin(t)).token;
    const today = formatInTimeZone(new Date(), TZ, 'yyyy-MM-dd');
    const window = `date_from=${addDays(today, -29)}&date_to=${today}`;
    await timeLists(t, token, window);
    const total = (await t.request('GET', `/api/v1/admin/reports/orders?${window}&limit=1`, { token })).body.meta
      .total as number;
    console.log(`\norders export over ${window}`);
    await timeExport(t, token, window, 'csv', total);
    await timeExport(t, token, window, 'xlsx', total);
  } finally {
    await t.stop();
  }
};
