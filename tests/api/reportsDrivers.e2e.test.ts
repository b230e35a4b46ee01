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
const expect422 = async (path: string, query: string, field: string) => {
  const r = await d.api.get(`/admin/reports/${path}?${query}`, d.root.token);
  expect(r.status, `${path}?${query}`).toBe(422);
  expect(r.body.error).toBe('ValidationError');
  expect(Object.keys(r.body.details.fieldErrors), `${path}?${query}`).toContain(field);
};
const driverIds = (items: { driver_id: number }[]) => items.map((i) => i.driver_id).sort((a, b) => a - b);

describe('drivers report', () => {
  it('has one row per driver with lifetime figures, always-null columns and totals equal to the rows', async () => {
    const { ana, bruno, mario, pendiente } = d.drivers;
    const { items, totals, meta } = await list('drivers');
    expect(meta.total).toBe(4);
    const row = (id: number) => items.find((i: { driver_id: number }) => i.driver_id === id);
    expect(row(ana.driverId)).toMatchObject({
      name: 'Ana Conductora',
      id_number: null,
      kyc_state: 'APPROVED',
      plate: expect.stringMatching(/^AB/),
      capacity: 10000,
      deliveries: 2,
      unanswered: null,
      acceptance_rate: null,
      own_cancellations: 1,
      liters_delivered: 5800,
      gross_earnings_usd: 67.5,
      commission_paid_usd: 7.5,
      solidary_usd: 0,
      // Two cash deliveries (o0 at 50, o1 at 25): the wallet owes their 10 % commission.
      balance_usd: -7.5,
      cash_debt_usd: 7.5,
      rating: 5,
      ratings_count: 1,
      incidents: 1,
    });
    // Online, driver gross 40 less 1 % solidary: the wallet earned 39.60.
    expect(row(bruno.driverId)).toMatchObject({
      deliveries: 1,
      gross_earnings_usd: 40,
      commission_paid_usd: 4.44,
      solidary_usd: 0.4,
      rating: 4,
      balance_usd: 39.6,
      cash_debt_usd: 0,
    });
    // One cash delivery at 15: 1.50 of commission owed.
    expect(row(mario.driverId)).toMatchObject({
      availability: 'bloqueado',
      block_reason: 'Documentos en revisión',
      deliveries: 1,
      balance_usd: -1.5,
      cash_debt_usd: 1.5,
    });
    expect(row(pendiente.driverId)).toMatchObject({
      kyc_state: 'PENDING_KYC',
      availability: 'fuera_de_linea',
      plate: null,
      capacity: null,
      rating: null,
      deliveries: 0,
    });
    const sum = (f: string) =>
      Math.round(items.reduce((s: number, i: Record<string, number>) => s + i[f], 0) * 100) / 100;
    expect(totals).toEqual({
      conductores: 4,
      aprobados: 3,
      bloqueados: 1,
      litros_entregados: sum('liters_delivered'),
      ganancia_bruta_usd: sum('gross_earnings_usd'),
      comision_usd: sum('commission_paid_usd'),
      deuda_cash_total_usd: 9,
    });
    expect(totals).toMatchObject({ litros_entregados: 9800, ganancia_bruta_usd: 121 });
  });

  it('applies every filter, sorts by every key and scopes by the driver’s city', async () => {
    const { ana, bruno, mario, pendiente } = d.drivers;
    const cases: [string, number[]][] = [
      ['kyc_state=PENDING_KYC', [pendiente.driverId]],
      ['kyc_state=APPROVED', [ana.driverId, bruno.driverId, mario.driverId]],
      ['availability=bloqueado', [mario.driverId]],
      ['availability=en_linea', [ana.driverId, bruno.driverId]],
      ['availability=fuera_de_linea', [pendiente.driverId]],
      ['rating_min=4.5', [ana.driverId]],
      ['rating_min=3&rating_max=4', [bruno.driverId]],
      ['with_cash_debt=true', [ana.driverId, mario.driverId]],
      ['with_cash_debt=false', [bruno.driverId, pendiente.driverId]],
      ['min_balance=0.01', [bruno.driverId]],
      ['capacity_min=10000&capacity_max=10000', [ana.driverId, bruno.driverId, mario.driverId]],
      ['capacity_max=5000', []],
    ];
    for (const [query, expected] of cases)
      expect(driverIds((await list('drivers', query)).items), query).toEqual([...expected].sort((a, b) => a - b));
    const keys: [string, string][] = [
      ['name', 'name'],
      ['registered_at', 'registered_at'],
      ['kyc_state', 'kyc_state'],
      ['rating', 'rating'],
      ['ratings_count', 'ratings_count'],
      ['capacity', 'capacity'],
      ['balance_usd', 'balance_usd'],
      ['cash_debt_usd', 'cash_debt_usd'],
      ['last_activity', 'last_activity'],
      ['deliveries', 'deliveries'],
      ['liters_delivered', 'liters_delivered'],
      ['gross_earnings_usd', 'gross_earnings_usd'],
      ['commission_paid_usd', 'commission_paid_usd'],
      ['own_cancellations', 'own_cancellations'],
    ];
    for (const [key, field] of keys) {
      for (const direction of ['asc', 'desc'] as const)
        expectSorted(
          (await list('drivers', `sort=${key}&direction=${direction}&limit=2`)).items.concat(
            (await list('drivers', `sort=${key}&direction=${direction}&limit=2&page=2`)).items,
          ),
          field,
          direction,
        );
    }
    expect(driverIds((await list('drivers', '', d.caracasAdmin.token)).items)).toEqual(
      [ana.driverId, bruno.driverId].sort((a, b) => a - b),
    );
    expect(driverIds((await list('drivers', '', d.maracaiboAdmin.token)).items)).toEqual([mario.driverId]);
    await expect422('drivers', 'rating_min=6', 'rating_min');
    await expect422('drivers', 'rating_min=4&rating_max=2', 'rating_max');
    await expect422('drivers', 'availability=away', 'availability');
    await expect422('drivers', 'kyc_state=DONE', 'kyc_state');
    await expect422('drivers', 'min_balance=-1', 'min_balance');
    await expect422('drivers', 'capacity_min=1.5', 'capacity_min');
    await expect422('drivers', 'with_cash_debt=si', 'with_cash_debt');
    await expect422('drivers', 'sort=phone', 'sort');
  });
});

describe('driver documents report', () => {
  it('has a row per driver and tracked document, missing then expired or expiring first, with totals', async () => {
    const { ana, pendiente } = d.drivers;
    const { items: all, totals, meta } = await list('drivers/documents');
    expect(meta).toEqual({ total: 24, per_page: 50, current_page: 1, last_page: 1 });
    expect(all.slice(0, 16).every((i: { status: string }) => i.status === 'faltante')).toBe(true);
    const items = all.slice(16);
    expect(items[0]).toEqual({
      driver_id: ana.driverId,
      driver_name: 'Ana Conductora',
      id_number: null,
      kyc_state: 'APPROVED',
      approved_by: null,
      kyc_approved_at: '2026-02-01',
      document: 'RCV',
      document_label: 'Póliza RCV',
      status: 'vencido',
      traffic_light: 'rojo',
      expires_at: '2026-03-01',
      days_remaining: -10,
      blocks: true,
    });
    expect(items[1]).toMatchObject({
      driver_id: ana.driverId,
      document: 'MEDICAL_CERT',
      status: 'por_vencer',
      traffic_light: 'amarillo',
      days_remaining: 9,
      blocks: false,
    });
    const byDoc = (id: number, doc: string) =>
      all.find((i: { driver_id: number; document: string }) => i.driver_id === id && i.document === doc);
    expect(byDoc(ana.driverId, 'LICENSE')).toMatchObject({
      status: 'vigente',
      traffic_light: 'verde',
      expires_at: '2099-12-31',
      blocks: false,
    });
    expect(byDoc(ana.driverId, 'SANITARY_CERT')).toMatchObject({
      status: 'faltante',
      traffic_light: 'gris',
      expires_at: null,
      days_remaining: null,
      blocks: false,
    });
    expect(byDoc(pendiente.driverId, 'ID_FRONT')).toMatchObject({
      status: 'faltante',
      traffic_light: 'rojo',
      blocks: true,
      kyc_state: 'PENDING_KYC',
      kyc_approved_at: null,
    });
    expect(totals).toEqual({ vigentes: 6, por_vencer: 1, vencidos: 1, faltantes: 16, conductores_bloqueados: 2 });
  });

  it('applies every filter, sorts by every key, pages up to 200 and scopes', async () => {
    const { ana, pendiente } = d.drivers;
    expect((await list('drivers/documents', 'document=RCV')).items).toHaveLength(4);
    expect(
      (await list('drivers/documents', 'status=vencido')).items.map((i: { document: string }) => i.document),
    ).toEqual(['RCV']);
    expect((await list('drivers/documents', 'status=por_vencer')).items).toHaveLength(1);
    expect((await list('drivers/documents', 'status=vigente')).items).toHaveLength(6);
    const blocked = (await list('drivers/documents', 'only_blocked=true')).items;
    expect(blocked.map((i: { driver_id: number; document: string }) => `${i.driver_id}:${i.document}`).sort()).toEqual(
      [`${ana.driverId}:RCV`, `${pendiente.driverId}:ID_FRONT`, `${pendiente.driverId}:LICENSE`].sort(),
    );
    expect((await list('drivers/documents', 'kyc_state=PENDING_KYC')).items).toHaveLength(6);
    expect((await list('drivers/documents', 'limit=200')).meta.per_page).toBe(200);
    for (const key of [
      'driver_name',
      'id_number',
      'kyc_state',
      'kyc_approved_at',
      'document',
      'status',
      'traffic_light',
      'expires_at',
      'days_remaining',
      'blocks',
    ]) {
      for (const direction of ['asc', 'desc'] as const) {
        const all = [
          ...(await list('drivers/documents', `sort=${key}&direction=${direction}&limit=12`)).items,
          ...(await list('drivers/documents', `sort=${key}&direction=${direction}&limit=12&page=2`)).items,
        ];
        expect(all).toHaveLength(24);
        expectSorted(all, key, direction);
      }
    }
    expect((await list('drivers/documents', '', d.caracasAdmin.token)).meta.total).toBe(12);
    await expect422('drivers/documents', 'limit=201', 'limit');
    await expect422('drivers/documents', 'document=PASSPORT', 'document');
    await expect422('drivers/documents', 'status=ok', 'status');
    await expect422('drivers/documents', 'only_blocked=nah', 'only_blocked');
    await expect422('drivers/documents', 'sort=phone', 'sort');
  });

  it(
    'shows the national id of the driver’s payout account in ' + 'both reports, and keeps it when an account has none',
    async () => {
      const { bruno } = d.drivers;
      const set = async (body: Record<string, unknown>) =>
        expect((await d.api.post('/wallet/me/payout-config', bruno.token, body)).status).toBe(200);
      const idNumbers = async () => {
        await settled(d);
        const drivers = (await list('drivers')).items.filter(
          (i: { driver_id: number }) => i.driver_id === bruno.driverId,
        );
        const documents = (await list('drivers/documents', 'limit=200')).items.filter(
          (i: { driver_id: number }) => i.driver_id === bruno.driverId,
        );
        return [...new Set([...drivers, ...documents].map((i: { id_number: string | null }) => i.id_number))];
      };
      expect(await idNumbers()).toEqual([null]);
      await set({ method: 'PAGO_MOVIL', bankCode: '0102', idNumber: 'V20111222', phone: '04141234567' });
      expect(await idNumbers()).toEqual(['V20111222']);
      await set({ method: 'BANK_TRANSFER', accountNumber: '01020000000000000001', accountType: 'corriente' });
      expect(await idNumbers()).toEqual(['V20111222']);
    },
  );
});

describe('driver performance report', () => {
  const window = 'date_from=2026-01-01&date_to=2026-03-31';

  it('has one row per driver and month, ranked among those who reach min_deliveries', async () => {
    const { ana, bruno, mario } = d.drivers;
    const body = await list('drivers/performance', window);
    expect(body.granularity).toBe('month');
    expect(
      body.items.map((i: { period: string; driver_id: number; rank: number | null }) => [
        i.period,
        i.driver_id,
        i.rank,
      ]),
    ).toEqual([
      ['2026-02', ana.driverId, 1],
      ['2026-03', ana.driverId, 1],
      ['2026-03', bruno.driverId, 2],
      ['2026-03', mario.driverId, 3],
    ]);
    expect(body.items[1]).toEqual({
      period: '2026-03',
      driver_id: ana.driverId,
      driver_name: 'Ana Conductora',
      rank: 1,
      online_hours: null,
      notified: null,
      accepted: 2,
      acceptance_rate: null,
      avg_response_minutes: null,
      deliveries: 1,
      completion_rate: 50,
      own_cancellations: 1,
      avg_delivery_minutes: 30,
      liters_agreed: 3500,
      liters_delivered: 1800,
      liters_accuracy: 90,
      earnings_usd: 22.5,
      rating: 5,
      incidents: 1,
    });
    const march = (q: string) =>
      list('drivers/performance', `${window}&${q}`).then((b) =>
        b.items
          .filter((i: { period: string }) => i.period === '2026-03')
          .map((i: { driver_id: number; rank: number | null }) => [i.driver_id, i.rank]),
      );
    expect(await march('rank_by=earnings_usd')).toEqual([
      [bruno.driverId, 1],
      [ana.driverId, 2],
      [mario.driverId, 3],
    ]);
    expect(await march('rank_by=liters_delivered')).toEqual([
      [bruno.driverId, 1],
      [ana.driverId, 2],
      [mario.driverId, 3],
    ]);
    expect(await march('rank_by=rating')).toEqual([
      [ana.driverId, 1],
      [bruno.driverId, 2],
      [mario.driverId, 3],
    ]);
    expect(await march('min_deliveries=2')).toEqual([
      [ana.driverId, null],
      [bruno.driverId, null],
      [mario.driverId, null],
    ]);
    expect((await list('drivers/performance', `${window}&driver_id=${bruno.driverId}`)).items).toHaveLength(1);
    expect(
      (await list('drivers/performance', `${window}&granularity=day`)).items.map((i: { period: string }) => i.period),
    ).toEqual(['2026-02-01', '2026-03-10', '2026-03-10', '2026-03-11']);
    expect(
      (await list('drivers/performance', `${window}&granularity=week`)).items.map((i: { period: string }) => i.period),
    ).toEqual(['2026-W05', '2026-W11', '2026-W11', '2026-W11']);
    // Default: the last 3 months, by month.
    expect((await list('drivers/performance')).items.map((i: { period: string }) => i.period)).toEqual([
      '2026-02',
      '2026-03',
      '2026-03',
      '2026-03',
    ]);
    expect(
      (await list('drivers/performance', window, d.maracaiboAdmin.token)).items.map(
        (i: { driver_id: number }) => i.driver_id,
      ),
    ).toEqual([mario.driverId]);
  });

  it('pages like every report list: the rows of a page in period and rank order, and the count of all', async () => {
    const { bruno, mario } = d.drivers;
    const body = await list('drivers/performance', `${window}&limit=2&page=2`);
    expect(
      body.items.map((i: { period: string; driver_id: number; rank: number }) => [i.period, i.driver_id, i.rank]),
    ).toEqual([
      ['2026-03', bruno.driverId, 2],
      ['2026-03', mario.driverId, 3],
    ]);
    expect(body.meta).toEqual({ total: 4, per_page: 2, current_page: 2, last_page: 2 });
    const pastTheEnd = await list('drivers/performance', `${window}&page=3&limit=2`);
    expect(pastTheEnd.items).toEqual([]);
    expect(pastTheEnd.meta).toEqual({ total: 4, per_page: 2, current_page: 3, last_page: 2 });
    expect((await list('drivers/performance', window)).meta).toEqual({
      total: 4,
      per_page: 25,
      current_page: 1,
      last_page: 1,
    });
    // By day a page is cut from the days it spans: every page of every size is that slice of the whole.
    const byDay = `${window}&granularity=day`;
    const whole = (await list('drivers/performance', byDay)).items;
    expect(whole.map((i: { period: string }) => i.period)).toEqual([
      '2026-02-01',
      '2026-03-10',
      '2026-03-10',
      '2026-03-11',
    ]);
    for (const limit of [1, 2, 3]) {
      for (let p = 1; p <= Math.ceil(whole.length / limit) + 1; p++) {
        const paged = await list('drivers/performance', `${byDay}&limit=${limit}&page=${p}`);
        expect(paged.items, `limit ${limit} page ${p}`).toEqual(whole.slice((p - 1) * limit, p * limit));
        expect(paged.meta.total).toBe(4);
      }
    }
  });

  it('answers 422 for a range over 366 days or a bad filter', async () => {
    await expect422('drivers/performance', 'date_from=2025-01-01&date_to=2026-01-02', 'date_to');
    expect(
      (await d.api.get('/admin/reports/drivers/performance?date_from=2025-01-01&date_to=2026-01-01', d.root.token))
        .status,
    ).toBe(200);
    await expect422('drivers/performance', 'granularity=year', 'granularity');
    await expect422('drivers/performance', 'rank_by=speed', 'rank_by');
    await expect422('drivers/performance', 'min_deliveries=-1', 'min_deliveries');
    await expect422('drivers/performance', 'driver_id=x', 'driver_id');
    await expect422('drivers/performance', 'limit=101', 'limit');
    await expect422('drivers/performance', 'page=0', 'page');
  });
});
