import { formatInTimeZone } from 'date-fns-tz';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intentsReport } from '../../api/admin/reports/intentsReport.js';
import { operationalReport } from '../../api/admin/reports/operationalReport.js';
import { ordersReport } from '../../api/admin/reports/ordersReport.js';
import { performanceReport } from '../../api/admin/reports/performanceReport.js';
import type { Report, ReportContext } from '../../api/admin/reports/report.js';
import { calendarZone } from '../../projections/reports/dailyRollup.js';
import { arrive, confirmedOrder, near } from '../support/orderFlows.js';
import { buildDataset, settled, type Dataset } from './reportsDataset.js';

/**
 * The routes that read the daily roll-ups (report_daily, report_daily_drivers) answer exactly what the
 * same report computes from the report_orders rows, on the reports dataset plus an order placed late at
 * night and delivered the next day, before and after the settlement timezone changes (which re-buckets).
 */
let d: Dataset;
let lateOrder: number;
beforeAll(async () => {
  d = await buildDataset();
  // 23:50 in Caracas on 2026-03-11, delivered at 00:35 on the 12th: the order stays in the 11th's bucket.
  d.clock.set('2026-03-12T03:50:00Z');
  const flow = await confirmedOrder(d.t, {
    client: d.clients.diego,
    driver: d.drivers.bruno,
    body: { basePrice: 40, litersRequested: 2500 },
  });
  lateOrder = flow.orderId;
  d.clock.advance(30 * 60_000);
  await arrive(d.t, flow);
  d.clock.advance(15 * 60_000);
  const delivered = await d.api.post(`/orders/${flow.orderId}/deliver`, flow.driver.token, {
    actualLiters: 2400,
    deliveryPin: flow.pin,
    ...near(0.001),
  });
  expect(delivered.status).toBe(200);
  expect((await d.api.post(`/orders/${flow.orderId}/rating`, d.clients.diego.token, { score: 3 })).status).toBe(201);
  await settled(d);
}, 180_000);
afterAll(async () => {
  await d?.t.stop();
});

const context = async (rowsOnly: boolean, scope: ReportContext['scope'] = { all: true }): Promise<ReportContext> => {
  const db = d.t.service.ctx.db;
  const tz = await calendarZone(db);
  const now = d.clock.now();
  return { db, scope, tz, today: formatInTimeZone(now, tz, 'yyyy-MM-dd'), now, rowsOnly };
};

const WINDOW = 'date_from=2026-02-15&date_to=2026-03-13';
const CASES: [Report<any, any>, string[]][] = [
  [
    ordersReport,
    [
      '',
      WINDOW,
      `${WINDOW}&city_id=1`,
      `${WINDOW}&water_type=POTABLE`,
      `${WINDOW}&driver_id=DRIVER`,
      `${WINDOW}&status=DELIVERED`,
      `${WINDOW}&client_id=CLIENT`,
    ],
  ],
  [intentsReport, ['', WINDOW, `${WINDOW}&city_id=2`, `${WINDOW}&client_id=CLIENT`, `${WINDOW}&has_offers=true`]],
  [
    operationalReport,
    [
      '',
      WINDOW,
      'date_from=2026-03-01&date_to=2026-03-13',
      `${WINDOW}&city_id=1`,
      `${WINDOW}&driver_id=DRIVER`,
      `${WINDOW}&water_type=POTABLE`,
      `${WINDOW}&client_id=CLIENT`,
    ],
  ],
  [
    performanceReport,
    [
      '',
      'date_from=2026-01-01&date_to=2026-03-31',
      'granularity=day&date_from=2026-01-20&date_to=2026-03-13',
      'granularity=week',
      `granularity=day&driver_id=DRIVER`,
    ],
  ],
];

const parsed = (r: Report<any, any>, query: string) => {
  const q = query
    .replace('DRIVER', String(d.drivers.bruno.driverId))
    .replace('CLIENT', String(d.clients.diego.user.id));
  return r.query.parse(Object.fromEntries(new URLSearchParams(q)));
};

const expectSameAnswers = async () => {
  for (const [r, queries] of CASES) {
    for (const query of queries) {
      for (const scope of [{ all: true } as const, { all: false as const, cityIds: [1] }]) {
        const fromRollups = await r.list(await context(false, scope), parsed(r, query));
        expect(fromRollups, `${r.path}?${query}`).toEqual(await r.list(await context(true, scope), parsed(r, query)));
      }
    }
  }
};

describe('daily roll-ups', () => {
  it('give every switched route the answer of the order rows', async () => {
    await expectSameAnswers();
    // Not an empty dataset agreeing with itself.
    const day = (await operationalReport.list(await context(false), parsed(operationalReport, WINDOW))) as {
      items: { date: string; published: number; delivered: number }[];
    };
    expect(day.items.find((i) => i.date === '2026-03-11')).toMatchObject({ published: 4, delivered: 2 });
    expect(day.items.find((i) => i.date === '2026-03-12')).toMatchObject({ published: 0 });
    const months = (await performanceReport.list(await context(false), parsed(performanceReport, ''))) as {
      items: { period: string; driver_id: number; deliveries: number; rating: number | null }[];
    };
    expect(months.items.find((i) => i.period === '2026-03' && i.driver_id === d.drivers.bruno.driverId)).toMatchObject({
      deliveries: 2,
      rating: 3.5,
    });
  });

  it('serve the same figures over HTTP', async () => {
    const body = (await d.api.get(`/admin/reports/orders/operational?${WINDOW}`, d.root.token)).body;
    expect(body).toEqual(await operationalReport.list(await context(true), parsed(operationalReport, WINDOW)));
  });

  it('re-bucket when the settlement timezone changes, and the routes follow it', async () => {
    expect((await d.api.patch('/admin/settlements/config', d.root.token, { timezone: '+02:00' })).status).toBe(200);
    await settled(d);
    expect(await calendarZone(d.t.service.ctx.db)).toBe('+02:00');
    await expectSameAnswers();
    // 03:50 UTC is 05:50 at +02:00: the late order now belongs to the 12th.
    const body = (await d.api.get(`/admin/reports/orders/operational?${WINDOW}`, d.root.token)).body as {
      items: { date: string; published: number }[];
    };
    expect(body.items.find((i) => i.date === '2026-03-12')).toMatchObject({ published: 1 });
    const orders = (await d.api.get(`/admin/reports/orders?date_from=2026-03-12&date_to=2026-03-12`, d.root.token))
      .body as { items: { id: number }[] };
    expect(orders.items.map((i) => i.id)).toEqual([lateOrder]);
  });
});
