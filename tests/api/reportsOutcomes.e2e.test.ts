import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDataset, expectSorted, settled, type Dataset } from './reportsDataset.js';

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
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const ids = (items: { id: number }[]) => sorted(items.map((i) => i.id));

describe('cancellations report', () => {
  it('lists cancelled and expired orders by who ended them, with totals equal to the rows', async () => {
    const { o3, o4, o6, o7 } = d.orders;
    const { items, totals, meta } = await list('orders/cancellations');
    expect(items.map((i: { id: number }) => i.id)).toEqual([o7, o6, o4, o3]);
    expect(meta.total).toBe(4);
    const row = (id: number) => items.find((i: { id: number }) => i.id === id);
    expect(row(o3)).toMatchObject({
      final_status: 'CANCELLED',
      cancelled_by: 'cliente',
      status_at_cancel: 'BROADCASTING',
      reason: 'Ya no la necesito',
      client_name: 'Carla Cliente',
      driver_name: null,
      liters: 1000,
      unrealized_usd: 10,
      minutes_to_cancel: 5,
      charged_before: false,
      refunded: false,
      recovered: true,
    });
    expect(row(o4)).toMatchObject({
      cancelled_by: 'conductor',
      status_at_cancel: 'CONFIRMED',
      reason: 'Problema con el vehículo',
      driver_name: 'Ana Conductora',
      minutes_to_cancel: 5,
      recovered: false,
    });
    expect(row(o6)).toMatchObject({
      cancelled_by: 'admin',
      reason: 'Pedido de prueba',
      city_name: 'Maracaibo',
      minutes_to_cancel: 2,
    });
    expect(row(o7)).toMatchObject({
      final_status: 'EXPIRED',
      cancelled_by: 'sistema',
      status_at_cancel: 'BROADCASTING',
    });
    expect(row(o7).minutes_to_cancel).toBeGreaterThanOrEqual(30);
    expect(totals).toEqual({
      cancelled_by_client: 1,
      cancelled_by_driver: 1,
      cancelled_by_admin: 1,
      expired: 1,
      unrealized_usd: items.reduce((s: number, i: { unrealized_usd: number }) => s + i.unrealized_usd, 0),
      recovery_rate: 25,
    });
  });

  it('applies every filter, sorts by every key and scopes by city', async () => {
    const { o3, o4, o6, o7 } = d.orders;
    const cases: [string, number[]][] = [
      ['cancelled_role=cliente', [o3]],
      ['cancelled_role=sistema', [o7]],
      ['status_at_cancel=CONFIRMED', [o4]],
      ['status_at_cancel=BROADCASTING', [o3, o6, o7]],
      [`driver_id=${d.drivers.ana.driverId}`, [o4]],
      [`client_id=${d.clients.diego.user.id}`, [o4]],
      ['with_refund=true', []],
      ['with_refund=false', [o3, o4, o6, o7]],
      ['city_id=2', [o6]],
      ['date_from=2026-03-11&date_to=2026-03-11', [o6, o7]],
    ];
    for (const [query, expected] of cases)
      expect(ids((await list('orders/cancellations', query)).items), query).toEqual(sorted(expected));
    for (const key of [
      'id',
      'date',
      'final_status',
      'client_name',
      'driver_name',
      'liters',
      'unrealized_usd',
      'minutes_to_cancel',
    ]) {
      for (const direction of ['asc', 'desc'] as const)
        expectSorted((await list('orders/cancellations', `sort=${key}&direction=${direction}`)).items, key, direction);
    }
    expect(ids((await list('orders/cancellations', '', d.caracasAdmin.token)).items)).toEqual(sorted([o3, o4, o7]));
    for (const [query, field] of [
      ['cancelled_role=robot', 'cancelled_role'],
      ['status_at_cancel=DELIVERED', 'status_at_cancel'],
      ['with_refund=yes', 'with_refund'],
      ['sort=reason', 'sort'],
      ['date_from=2026-01-01&date_to=2026-02-15', 'date_to'],
    ]) {
      const r = await d.api.get(`/admin/reports/orders/cancellations?${query}`, d.root.token);
      expect(r.status, query).toBe(422);
      expect(Object.keys(r.body.details.fieldErrors), query).toContain(field);
    }
  });
});

describe('intents report', () => {
  it('lists non-converted orders with their offers and sets them against every published order', async () => {
    const { o3, o4, o6, o7 } = d.orders;
    const { items, totals } = await list('orders/intents');
    expect(ids(items)).toEqual(sorted([o3, o4, o6, o7]));
    const row = (id: number) => items.find((i: { id: number }) => i.id === id);
    expect(row(o3)).toMatchObject({
      failure_reason: 'cancelled_by_client',
      failure_reason_label: 'Cancelado por el cliente',
      cancellation_reason_code: 'CLIENT_CHANGED_MIND',
      cancellation_reason_label: 'Cambié de opinión',
      cancellation_reason_note: 'Ya no la necesito',
      offers_count: 0,
      best_offer_usd: null,
      offers: [],
    });
    expect(row(o4)).toMatchObject({
      failure_reason: 'cancelled_by_driver',
      offers_count: 1,
      offers_at_base_price: 1,
      had_accepted_offer: true,
      best_offer_usd: 20,
      base_price_usd: 20,
      unrealized_usd: 20,
    });
    expect(row(o4).offers).toEqual([
      {
        driver_id: d.drivers.ana.driverId,
        driver_name: 'Ana Conductora',
        offer_price_usd: 20,
        at_base_price: true,
        status: 'ACCEPTED',
        created_at: expect.any(String),
      },
    ]);
    expect(row(o6)).toMatchObject({
      failure_reason: 'cancelled_by_admin',
      city_name: 'Maracaibo',
      cancellation_reason_code: 'ADMIN_TEST',
    });
    // Bruno's counter-offer: driver gross 9 is a price of round(9 / 0.9) = 10 over the published 8.
    expect(row(o7)).toMatchObject({
      failure_reason: 'expired_with_offers',
      final_status: 'EXPIRED',
      offers_count: 1,
      offers_at_base_price: 0,
      best_offer_usd: 10,
      had_accepted_offer: false,
    });
    expect(row(o7).offers).toEqual([
      expect.objectContaining({ driver_id: d.drivers.bruno.driverId, offer_price_usd: 10, at_base_price: false }),
    ]);
    expect(totals).toEqual({
      total_intents: 7,
      converted: 3,
      not_converted: 4,
      conversion_pct: 42.9,
      expired_no_offers: 0,
      expired_with_offers: 1,
      cancelled_by_client: 1,
      cancelled_by_driver: 1,
      cancelled_by_admin: 1,
      with_offers: 2,
      without_offers: 2,
      unrealized_usd: 50,
    });
  });

  it('applies every filter and sorts by every key', async () => {
    const { o3, o4, o6, o7 } = d.orders;
    const cases: [string, number[]][] = [
      ['failure_reason=cancelled_by_driver', [o4]],
      ['failure_reason=expired_no_offers', []],
      ['has_offers=0', [o3, o6]],
      ['has_offers=1', [o4, o7]],
      ['cancellation_reason_code=ADMIN_TEST', [o6]],
      ['city_id=2', [o6]],
      [`client_id=${d.clients.carla.user.id}`, [o3, o7]],
      ['water_type=INDUSTRIAL', []],
    ];
    for (const [query, expected] of cases)
      expect(ids((await list('orders/intents', query)).items), query).toEqual(sorted(expected));
    for (const key of [
      'id',
      'created_at',
      'final_status',
      'client_name',
      'liters_requested',
      'unrealized_usd',
      'offers_count',
      'minutes_to_outcome',
    ]) {
      for (const direction of ['asc', 'desc'] as const)
        expectSorted((await list('orders/intents', `sort=${key}&direction=${direction}`)).items, key, direction);
    }
    for (const [query, field] of [
      ['failure_reason=lost', 'failure_reason'],
      ['cancellation_reason_code=NOPE', 'cancellation_reason_code'],
      ['has_offers=2', 'has_offers'],
    ]) {
      const r = await d.api.get(`/admin/reports/orders/intents?${query}`, d.root.token);
      expect(r.status, query).toBe(422);
      expect(Object.keys(r.body.details.fieldErrors), query).toContain(field);
    }
  });
});

describe('operational report', () => {
  const window = 'date_from=2026-02-10&date_to=2026-03-11';

  it('has one row per calendar day, totals over the window and the previous period with its variations', async () => {
    const { items, totals, comparison } = await list('orders/operational', window);
    expect(items).toHaveLength(30);
    expect(items[0].date).toBe('2026-02-10');
    expect(items[29].date).toBe('2026-03-11');
    expect(items.find((i: { date: string }) => i.date === '2026-03-10')).toEqual({
      date: '2026-03-10',
      published: 4,
      accepted: 3,
      delivered: 2,
      cancelled: 2,
      expired: 0,
      conversion_pct: 50,
      liters_requested: 7500,
      liters_delivered: 4800,
      avg_ticket_usd: 34.72,
      // Accepted after 3 (o1), 2 (o2) and 1 (o4) minutes; o1 and o2 delivered 30 minutes after acceptance.
      avg_acceptance_minutes: 2,
      avg_delivery_minutes: 30,
      active_drivers: 2,
      gross_income_usd: 69.44,
      commission_usd: 6.94,
    });
    expect(items.find((i: { date: string }) => i.date === '2026-02-20')).toMatchObject({
      published: 0,
      conversion_pct: 0,
      avg_ticket_usd: null,
      avg_acceptance_minutes: null,
      gross_income_usd: 0,
    });
    // o5 was accepted after 6 minutes and delivered 20 minutes later: (3 + 2 + 1 + 6) / 4 and (30 + 30 + 20) / 3.
    expect(items.find((i: { date: string }) => i.date === '2026-03-11')).toMatchObject({
      avg_acceptance_minutes: 6,
      avg_delivery_minutes: 20,
    });
    expect(totals).toMatchObject({
      published: 7,
      accepted: 4,
      delivered: 3,
      cancelled: 3,
      expired: 1,
      conversion_pct: 42.9,
      liters_delivered: 5800,
      avg_acceptance_minutes: 3,
      avg_delivery_minutes: 26.7,
      active_drivers: 3,
      gross_income_usd: 84.44,
      commission_usd: 8.44,
    });
    for (const f of ['published', 'delivered', 'cancelled', 'expired', 'liters_requested']) {
      expect(
        items.reduce((s: number, i: Record<string, number>) => s + i[f], 0),
        f,
      ).toBe(totals[f]);
    }
    expect(comparison).toEqual({
      previous_period: { from: '2026-01-11', to: '2026-02-09' },
      previous: { published: 1, delivered: 1, gross_income_usd: 50, commission_usd: 5, conversion_pct: 100 },
      variation_pct: {
        published: 600,
        delivered: 200,
        cancelled: null,
        expired: null,
        gross_income_usd: 68.9,
        commission_usd: 68.8,
        conversion_pct: -57.1,
      },
    });
  });

  it('sorts only the items, filters and scopes', async () => {
    const base = await list('orders/operational', window);
    const bySort = await list('orders/operational', `${window}&sort=published&direction=desc`);
    expect(bySort.items.slice(0, 2).map((i: { date: string }) => i.date)).toEqual(['2026-03-10', '2026-03-11']);
    expect(bySort.totals).toEqual(base.totals);
    expect(bySort.comparison).toEqual(base.comparison);
    for (const key of [
      'date',
      'published',
      'accepted',
      'delivered',
      'cancelled',
      'expired',
      'conversion_pct',
      'liters_requested',
      'liters_delivered',
      'avg_ticket_usd',
      'avg_acceptance_minutes',
      'avg_delivery_minutes',
      'active_drivers',
      'gross_income_usd',
      'commission_usd',
    ]) {
      for (const direction of ['asc', 'desc'] as const)
        expectSorted(
          (await list('orders/operational', `${window}&sort=${key}&direction=${direction}`)).items,
          key,
          direction,
        );
    }
    expect((await list('orders/operational', `${window}&city_id=2`)).totals).toMatchObject({
      published: 2,
      delivered: 1,
    });
    expect((await list('orders/operational', `${window}&driver_id=${d.drivers.ana.driverId}`)).totals).toMatchObject({
      published: 2,
      delivered: 1,
      cancelled: 1,
    });
    expect((await list('orders/operational', `${window}&client_id=${d.clients.marta.user.id}`)).totals).toMatchObject({
      published: 2,
    });
    expect((await list('orders/operational', `${window}&water_type=INDUSTRIAL`)).totals).toMatchObject({
      published: 0,
    });
    expect((await list('orders/operational', window, d.maracaiboAdmin.token)).totals).toMatchObject({
      published: 2,
      gross_income_usd: 15,
    });
    // The default window is the last 30 days, today included.
    expect((await list('orders/operational')).items.map((i: { date: string }) => i.date).slice(-1)).toEqual([
      '2026-03-11',
    ]);
    const r = await d.api.get('/admin/reports/orders/operational?sort=date_desc', d.root.token);
    expect(r.status).toBe(422);
    expect(r.body.details.fieldErrors.sort).toBeDefined();
  });
});
