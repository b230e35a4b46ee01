import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInClient } from '../support/actors.js';
import { onlineDriver, orderBody } from '../support/orderFlows.js';
import { MARACAIBO, buildDataset, expectSorted, settled, type Dataset } from './reportsDataset.js';

let d: Dataset;
beforeAll(async () => {
  d = await buildDataset();
  await settled(d);
}, 120_000);
afterAll(async () => {
  await d?.t.stop();
});

const list = async (path: string, query = '', token = d.root.token) => {
  const r = await d.api.get(`/admin/reports/${path}${query ? `?${query}` : ''}`, token);
  if (r.status !== 200) throw new Error(`${path}?${query} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
};
const ids = (items: { id: number }[]) => items.map((i) => i.id).sort((a, b) => a - b);

describe('orders report', () => {
  it('needs an admin token', async () => {
    for (const path of [
      'orders',
      'orders/cancellations',
      'orders/intents',
      'orders/operational',
      'drivers',
      'drivers/documents',
      'drivers/performance',
    ]) {
      expect((await d.api.get(`/admin/reports/${path}`)).status, path).toBe(401);
      expect((await d.api.get(`/admin/reports/${path}`, d.clients.carla.token)).status, path).toBe(403);
      expect((await d.api.get(`/admin/reports/${path}/export`, d.clients.carla.token)).status, path).toBe(403);
    }
  });

  it('documents all fourteen routes in the OpenAPI document, with their 200 and 422 answers', async () => {
    const doc = (await d.api.get('/openapi.json')).body;
    for (const path of [
      'orders',
      'orders/cancellations',
      'orders/intents',
      'orders/operational',
      'drivers',
      'drivers/documents',
      'drivers/performance',
    ]) {
      for (const suffix of ['', '/export']) {
        const op =
          doc.paths[`/api/v1/admin/reports/${path}${suffix}`]?.get ?? doc.paths[`/admin/reports/${path}${suffix}`]?.get;
        expect(op, `${path}${suffix}`).toBeDefined();
        expect(Object.keys(op.responses), `${path}${suffix}`).toEqual(
          expect.arrayContaining(['200', '401', '403', '422']),
        );
      }
    }
  });

  it('has one row per order of the last 30 days with the figures of each, newest first', async () => {
    const { o1, o2, o3, o4, o5, o6, o7 } = d.orders;
    const body = await list('orders');
    expect(body.items.map((i: { id: number }) => i.id)).toEqual([o7, o6, o5, o4, o2, o1, o3]);
    expect(body.meta).toEqual({ total: 7, per_page: 25, current_page: 1, last_page: 1 });
    const row = (id: number) => body.items.find((i: { id: number }) => i.id === id);
    expect(row(o1)).toMatchObject({
      status: 'DELIVERED',
      status_label: 'Entregado',
      city_id: 1,
      city_name: 'Caracas',
      client_id: d.clients.carla.user.id,
      client_name: 'Carla Cliente',
      driver_id: d.drivers.ana.driverId,
      driver_name: 'Ana Conductora',
      plate: expect.stringMatching(/^AB/),
      water_type: 'POTABLE',
      liters_requested: 2000,
      liters_delivered: 1800,
      liters_diff: -200,
      liters_diff_flagged: true,
      base_price_usd: 25,
      final_price_usd: 25,
      payment_method: 'CASH_USD',
      payment_method_label: 'Efectivo (USD)',
      payment_status: 'confirmed',
      commission_usd: 2.5,
      solidary_fund_usd: 0,
      driver_net_usd: 22.5,
      origin: 'app',
      has_counter_offer: false,
      acceptance_minutes: 3,
      delivery_minutes: 30,
      rating: 5,
      incidents: 1,
    });
    // The counter-offer's driver gross 40 makes the water price round(40 / 0.9) = 44.44.
    expect(row(o2)).toMatchObject({
      payment_method: 'PAYPROV_DI',
      payment_status: 'confirmed',
      has_counter_offer: true,
      base_price_usd: 30,
      final_price_usd: 44.44,
      commission_usd: 4.44,
      driver_net_usd: 39.6,
      solidary_fund_usd: 0.84,
      rating: 4,
      incidents: 0,
      liters_diff_flagged: false,
    });
    expect(row(o5)).toMatchObject({
      city_id: 2,
      city_name: 'Maracaibo',
      driver_name: 'Mario Zuliano',
      client_name: 'Marta Maracucha',
    });
    expect(row(o3)).toMatchObject({
      status: 'CANCELLED',
      driver_id: null,
      driver_name: null,
      final_price_usd: null,
      liters_delivered: null,
      liters_diff: null,
      acceptance_minutes: null,
      rating: null,
    });
    expect(row(o7)).toMatchObject({ status: 'EXPIRED', has_counter_offer: true, driver_id: null });
  });

  it('totals count every row, money over delivered orders only, and equal the sum of the rows', async () => {
    const { items, totals } = await list('orders');
    const delivered = items.filter((i: { status: string }) => i.status === 'DELIVERED');
    const sum = (rows: any[], f: string) => Math.round(rows.reduce((s, r) => s + (r[f] ?? 0), 0) * 100) / 100;
    expect(totals).toEqual({
      pedidos: items.length,
      litros_solicitados: sum(items, 'liters_requested'),
      litros_entregados: sum(items, 'liters_delivered'),
      monto_bruto_usd: sum(delivered, 'final_price_usd'),
      comision_usd: sum(delivered, 'commission_usd'),
      neto_conductores_usd: sum(delivered, 'driver_net_usd'),
    });
    expect(totals).toMatchObject({ pedidos: 7, monto_bruto_usd: 84.44, litros_entregados: 5800 });
  });

  it('applies every filter', async () => {
    const { o1, o2, o3, o4, o5, o6, o7 } = d.orders;
    const cases: [string, number[]][] = [
      ['city_id=2', [o5, o6]],
      ['status=DELIVERED', [o1, o2, o5]],
      [`driver_id=${d.drivers.ana.driverId}`, [o1, o4]],
      [`client_id=${d.clients.carla.user.id}`, [o1, o3, o7]],
      ['water_type=POTABLE', [o1, o2, o3, o4, o5, o6, o7]],
      ['water_type=INDUSTRIAL', []],
      ['payment_method=PAYPROV_DI', [o2]],
      ['payment_status=confirmed', [o1, o2, o5]],
      ['payment_status=pending', [o3, o4, o6, o7]],
      ['origin=app', [o1, o2, o3, o4, o5, o6, o7]],
      ['origin=remate', []],
      ['has_counter_offer=true', [o2, o7]],
      ['has_counter_offer=0', [o1, o3, o4, o5, o6]],
      ['has_incident=1', [o1]],
      ['rating_min=5', [o1]],
      ['rating_min=4&rating_max=4', [o2]],
      ['date_from=2026-03-11&date_to=2026-03-11', [o5, o6, o7]],
      ['date_from=2026-02-01&date_to=2026-02-01', [d.orders.o0]],
    ];
    for (const [query, expected] of cases)
      expect(ids((await list('orders', query)).items), query).toEqual([...expected].sort((a, b) => a - b));
  });

  it('sorts the whole dataset by every key in both directions before paging', async () => {
    const keys = [
      'id',
      'created_at',
      'status',
      'water_type',
      'city_name',
      'client_name',
      'driver_name',
      'liters_requested',
      'liters_delivered',
      'liters_diff',
      'base_price_usd',
      'final_price_usd',
      'commission_usd',
      'driver_net_usd',
      'acceptance_minutes',
      'delivery_minutes',
      'rating',
      'incidents',
    ];
    for (const key of keys) {
      for (const direction of ['asc', 'desc'] as const) {
        const pages = [];
        for (let page = 1; page <= 3; page++)
          pages.push(...(await list('orders', `sort=${key}&direction=${direction}&limit=3&page=${page}`)).items);
        expect(pages, `${key} ${direction}`).toHaveLength(7);
        expectSorted(pages, key, direction);
      }
    }
  });

  it('scopes an admin to their cities', async () => {
    const { o1, o2, o3, o4, o5, o6, o7 } = d.orders;
    expect(ids((await list('orders', '', d.caracasAdmin.token)).items)).toEqual(
      [o1, o2, o3, o4, o7].sort((a, b) => a - b),
    );
    expect(ids((await list('orders', '', d.maracaiboAdmin.token)).items)).toEqual([o5, o6].sort((a, b) => a - b));
    expect((await list('orders', 'city_id=2', d.caracasAdmin.token)).items).toEqual([]);
    expect((await list('orders', '', d.maracaiboAdmin.token)).totals).toMatchObject({
      pedidos: 2,
      monto_bruto_usd: 15,
    });
  });

  it('answers 422 naming the field for every bad filter, sort, direction, page or range', async () => {
    const cases: [string, string][] = [
      ['sort=bogus', 'sort'],
      ['direction=up', 'direction'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['page=0', 'page'],
      ['status=LOST', 'status'],
      ['city_id=abc', 'city_id'],
      ['rating_min=6', 'rating_min'],
      ['rating_min=4&rating_max=2', 'rating_max'],
      ['has_counter_offer=maybe', 'has_counter_offer'],
      ['payment_status=paid', 'payment_status'],
      ['origin=web', 'origin'],
      ['date_from=2026-02-30', 'date_from'],
      ['date_from=2026-01-01&date_to=2026-01-31', 'date_to'],
      ['date_from=2026-03-05&date_to=2026-03-01', 'date_to'],
    ];
    for (const [query, field] of cases) {
      for (const path of ['orders', 'orders/export']) {
        const r = await d.api.get(`/admin/reports/${path}?${query}`, d.root.token);
        expect(r.status, `${path}?${query}`).toBe(422);
        expect(r.body.error).toBe('ValidationError');
        expect(Object.keys(r.body.details.fieldErrors), `${path}?${query}`).toContain(field);
      }
    }
    // 30 calendar days counting both ends is the longest range.
    expect(
      (await d.api.get('/admin/reports/orders?date_from=2026-01-01&date_to=2026-01-30', d.root.token)).status,
    ).toBe(200);
  });
});

describe('order city', () => {
  it('is the city nearest to the delivery point, whatever the driver’s city, and scopes customers too', async () => {
    // A driver whose profile says Caracas, working in Maracaibo, for a new client there: its first position
    // must lie in its city, so it starts out as Maracaibo's and then moves its profile to Caracas.
    const driver = await onlineDriver(d.t, {
      name: 'Caraqueño en Zulia',
      cityId: 2,
      lat: MARACAIBO.latitude + 0.01,
      lng: MARACAIBO.longitude,
    });
    const profile = { plate: `ZU${String(driver.driverId).padStart(5, '0')}`, capacityLiters: 10_000, cityId: 1 };
    expect((await d.api.put('/driver/profile', driver.token, profile)).status).toBe(200);
    const client = await signInClient(d.t, undefined, 'Zuliana Nueva');
    const created = await d.api.post('/orders', client.token, orderBody({ ...MARACAIBO, basePrice: 9 }));
    expect(created.status).toBe(201);
    const orderId: number = created.body.order.id;
    expect((await d.api.post(`/orders/${orderId}/accept`, driver.token, {})).status).toBe(201);
    await settled(d);
    const history = await d.t.service.ctx.store.readStream(`order-${orderId}`);
    expect(history[0]).toMatchObject({ type: 'OrderCreated', data: { cityId: 2 } });
    expect((await list('orders', `client_id=${client.user.id}`, d.maracaiboAdmin.token)).items).toMatchObject([
      { id: orderId, city_name: 'Maracaibo' },
    ]);
    expect((await list('orders', `client_id=${client.user.id}`, d.caracasAdmin.token)).items).toEqual([]);
    const customers = async (token: string) =>
      (await d.api.get(`/admin/customers?q=${encodeURIComponent(client.user.phone)}`, token)).body.items.map(
        (c: { id: number }) => c.id,
      );
    expect(await customers(d.maracaiboAdmin.token)).toEqual([client.user.id]);
    expect(await customers(d.caracasAdmin.token)).toEqual([]);
  });
});
