import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { formatInTimeZone } from 'date-fns-tz';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDataset, settled, type Dataset } from './reportsDataset.js';

/** Every export parsed back: the spec's numbered Spanish columns in order, one row per list row, the list's values. */

let d: Dataset;
beforeAll(async () => {
  d = await buildDataset();
  await settled(d);
}, 120_000);
afterAll(async () => {
  await d?.t.stop();
});

const TZ = 'America/Caracas';

interface Case {
  path: string;
  query: string;
  file: string;
  /** The Spanish column headers, in the contract's order. */
  headers: string[];
  /** Spot checks: column header → the list item's field whose value the cell holds. */
  fields: Record<string, string>;
}

const CASES: Case[] = [
  {
    path: 'orders',
    query: 'sort=final_price_usd&direction=asc',
    file: 'reporte_ordenes',
    headers: [
      'Fecha creación',
      'Pedido',
      'Estado',
      'Ciudad',
      'Cliente',
      'Conductor',
      'Placa',
      'Dirección',
      'Tipo de agua',
      'Litros solicitados',
      'Litros entregados',
      'Dif. litros',
      'Precio base (USD)',
      'Precio final (USD)',
      'Método de pago',
      'Estado de pago',
      'Comisión (USD)',
      'Fondo solidario (USD)',
      'Neto conductor (USD)',
      'Origen',
      'Contraoferta',
      'Tiempo aceptación (min)',
      'Tiempo entrega (min)',
      'Calificación',
      'Incidencias',
    ],
    fields: {
      'Fecha creación': 'created_at',
      Pedido: 'id',
      Estado: 'status_label',
      Ciudad: 'city_name',
      Cliente: 'client_name',
      'Dif. litros': 'liters_diff',
      'Precio final (USD)': 'final_price_usd',
      'Neto conductor (USD)': 'driver_net_usd',
      Contraoferta: 'has_counter_offer',
      Calificación: 'rating',
    },
  },
  {
    path: 'orders/cancellations',
    query: '',
    file: 'reporte_cancelaciones',
    headers: [
      'Fecha',
      'Pedido',
      'Estado final',
      'Canceló',
      'Estado al cancelar',
      'Motivo',
      'Ciudad',
      'Cliente',
      'Conductor',
      'Litros',
      'Monto no concretado (USD)',
      'Tiempo hasta cancelar (min)',
      'Cobro previo',
      'Reembolso',
      'Recuperado',
    ],
    fields: {
      Fecha: 'date',
      Pedido: 'id',
      Canceló: 'cancelled_by',
      Motivo: 'reason',
      'Monto no concretado (USD)': 'unrealized_usd',
      Recuperado: 'recovered',
    },
  },
  {
    path: 'orders/intents',
    query: 'sort=offers_count',
    file: 'reporte_intenciones',
    headers: [
      'Fecha',
      'Pedido',
      'Estado final',
      'Motivo de fallo',
      'Motivo cancelación',
      'Nota',
      'Ciudad',
      'Cliente',
      'Tipo de agua',
      'Litros solicitados',
      'Precio base (USD)',
      'Monto no concretado (USD)',
      'Tiempo hasta desenlace (min)',
      'N.º ofertas',
      'Mejor oferta (USD)',
      'Ofertas a precio base',
      'Tuvo oferta aceptada',
    ],
    fields: {
      Pedido: 'id',
      'Motivo de fallo': 'failure_reason_label',
      'N.º ofertas': 'offers_count',
      'Mejor oferta (USD)': 'best_offer_usd',
    },
  },
  {
    path: 'orders/operational',
    query: 'date_from=2026-02-10&date_to=2026-03-11',
    file: 'reporte_operativo',
    headers: [
      'Fecha',
      'Publicados',
      'Aceptados',
      'Entregados',
      'Cancelados',
      'Expirados',
      'Conversión (%)',
      'Litros solicitados',
      'Litros entregados',
      'Ticket promedio (USD)',
      'T. medio aceptación (min)',
      'T. medio entrega (min)',
      'Conductores activos',
      'Ingreso bruto (USD)',
      'Comisión (USD)',
    ],
    fields: {
      Fecha: 'date',
      Publicados: 'published',
      'Conversión (%)': 'conversion_pct',
      'Ticket promedio (USD)': 'avg_ticket_usd',
      'Ingreso bruto (USD)': 'gross_income_usd',
    },
  },
  {
    path: 'drivers',
    query: 'sort=name&direction=asc',
    file: 'reporte_cisterneros',
    headers: [
      'Conductor',
      'Cédula',
      'Teléfono',
      'Fecha registro',
      'Estado KYC',
      'Disponibilidad',
      'Motivo bloqueo',
      'Placa',
      'Capacidad',
      'Entregas',
      'No respondidos',
      'Tasa aceptación (%)',
      'Cancelaciones',
      'Litros entregados',
      'Ganancia bruta (USD)',
      'Comisión pagada (USD)',
      'Aporte solidario (USD)',
      'Saldo actual (USD)',
      'Deuda cash (USD)',
      'Calificación',
      'N.º calificaciones',
      'Incidencias',
      'Última actividad',
    ],
    fields: {
      Conductor: 'name',
      'Fecha registro': 'registered_at',
      Entregas: 'deliveries',
      'No respondidos': 'unanswered',
      'Ganancia bruta (USD)': 'gross_earnings_usd',
      Calificación: 'rating',
    },
  },
  {
    path: 'drivers/documents',
    query: '',
    file: 'reporte_documentacion',
    headers: [
      'Conductor',
      'Cédula',
      'Estado KYC',
      'Aprobado por',
      'Fecha aprobación',
      'Documento',
      'Estado documento',
      'Semáforo',
      'Fecha vencimiento',
      'Días restantes',
      'Bloquea',
    ],
    fields: {
      Conductor: 'driver_name',
      'Fecha aprobación': 'kyc_approved_at',
      Documento: 'document_label',
      Semáforo: 'traffic_light',
      'Fecha vencimiento': 'expires_at',
      'Días restantes': 'days_remaining',
      Bloquea: 'blocks',
    },
  },
  {
    path: 'drivers/performance',
    query: 'date_from=2026-01-01&date_to=2026-03-31',
    file: 'reporte_desempeno_cisterneros',
    headers: [
      'Período',
      'Conductor',
      'Posición',
      'Horas en línea',
      'Notificados',
      'Aceptados',
      'Tasa aceptación (%)',
      'T. medio respuesta (min)',
      'Entregas',
      'Tasa completitud (%)',
      'Cancelaciones',
      'T. medio entrega (min)',
      'Litros pactados',
      'Litros entregados',
      'Precisión litros (%)',
      'Ganancia (USD)',
      'Calificación',
      'Incidencias',
    ],
    fields: {
      Período: 'period',
      Conductor: 'driver_name',
      Posición: 'rank',
      'Horas en línea': 'online_hours',
      'Ganancia (USD)': 'earnings_usd',
    },
  },
];

const allItems = async (c: Case): Promise<Record<string, unknown>[]> => {
  const paged = c.path !== 'orders/operational';
  const r = await d.api.get(`/admin/reports/${c.path}?${c.query}${paged ? '&limit=100' : ''}`, d.root.token);
  expect(r.status).toBe(200);
  return r.body.items;
};

const download = async (c: Case, format: 'csv' | 'xlsx') => {
  const res = await fetch(`${d.t.baseUrl}/api/v1/admin/reports/${c.path}/export?${c.query}&format=${format}`, {
    headers: { authorization: `Bearer ${d.root.token}` },
  });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
};

const csvText = (v: unknown): string =>
  v === null || v === undefined ? '' : typeof v === 'boolean' ? (v ? 'Sí' : 'No') : String(v);
const isIsoInstant = (v: unknown): v is string => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v);
const isDay = (v: unknown): v is string => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v);

describe.each(CASES)('$path export', (c) => {
  it('CSV: UTF-8 with BOM, the spec’s header, one row per list row with the list’s values', async () => {
    const items = await allItems(c);
    const { res, bytes } = await download(c, 'csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const stamp = formatInTimeZone(d.clock.now(), TZ, 'yyyyMMdd');
    expect(res.headers.get('content-disposition')).toMatch(
      new RegExp(`^attachment; filename="${c.file}_${stamp}_\\d{6}\\.csv"$`),
    );
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const parsed = Papa.parse<string[]>(bytes.toString('utf8').slice(1), { skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    const [header, ...rows] = parsed.data;
    expect(header).toEqual(c.headers);
    expect(rows).toHaveLength(items.length);
    expect(items.length).toBeGreaterThan(0);
    rows.forEach((row, i) => {
      for (const [h, field] of Object.entries(c.fields))
        expect(row[c.headers.indexOf(h)], `${h} row ${i}`).toBe(csvText(items[i][field]));
    });
  });

  it('XLSX: same columns, numbers as numbers, dates as dates', async () => {
    const items = await allItems(c);
    const { res, bytes } = await download(c, 'xlsx');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(res.headers.get('content-disposition')).toMatch(new RegExp(`filename="${c.file}_\\d{8}_\\d{6}\\.xlsx"$`));
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(bytes as unknown as ArrayBuffer);
    const sheet = book.worksheets[0];
    const values = (n: number) => (sheet.getRow(n).values as unknown[]).slice(1);
    expect(values(1)).toEqual(c.headers);
    expect(sheet.actualRowCount).toBe(items.length + 1);
    items.forEach((item, i) => {
      const row = values(i + 2);
      for (const [h, field] of Object.entries(c.fields)) {
        const cell = row[c.headers.indexOf(h)] ?? null;
        const v = item[field];
        if (v === null) expect(cell, `${h} row ${i}`).toBeNull();
        else if (typeof v === 'number') expect(cell, `${h} row ${i}`).toBe(v);
        else if (typeof v === 'boolean') expect(cell).toBe(v ? 'Sí' : 'No');
        else if (isIsoInstant(v))
          expect((cell as Date).toISOString().slice(0, 19), `${h} row ${i}`).toBe(
            formatInTimeZone(v, TZ, "yyyy-MM-dd'T'HH:mm:ss"),
          );
        else if (isDay(v)) expect((cell as Date).toISOString().slice(0, 10), `${h} row ${i}`).toBe(v);
        else expect(cell, `${h} row ${i}`).toBe(v);
      }
    });
  });
});

describe('exports', () => {
  it('use the list’s filters and scope, and refuse a bad filter with a 422 before any byte of the file', async () => {
    const caracas = await fetch(`${d.t.baseUrl}/api/v1/admin/reports/orders/export`, {
      headers: { authorization: `Bearer ${d.caracasAdmin.token}` },
    });
    const rows = Papa.parse<string[]>((await caracas.text()).slice(1), { skipEmptyLines: true }).data.slice(1);
    expect(rows.map((r) => r[3]).sort()).toEqual(['Caracas', 'Caracas', 'Caracas', 'Caracas', 'Caracas']);
    const filtered = await fetch(`${d.t.baseUrl}/api/v1/admin/reports/orders/export?status=DELIVERED`, {
      headers: { authorization: `Bearer ${d.root.token}` },
    });
    expect(Papa.parse((await filtered.text()).slice(1), { skipEmptyLines: true }).data).toHaveLength(4);
    const bad = await d.api.get('/admin/reports/orders/export?format=pdf', d.root.token);
    expect(bad.status).toBe(422);
    expect(bad.body.details.fieldErrors.format).toBeDefined();
  });

  it('an empty result is the header row alone', async () => {
    const res = await fetch(`${d.t.baseUrl}/api/v1/admin/reports/orders/export?water_type=INDUSTRIAL`, {
      headers: { authorization: `Bearer ${d.root.token}` },
    });
    expect(res.status).toBe(200);
    expect(Papa.parse((await res.text()).slice(1), { skipEmptyLines: true }).data).toHaveLength(1);
  });
});

/** LibreOffice (`.ci/run` installs libreoffice-calc-nogui) opens both formats and reads the spec's columns back. */
const soffice = ['/usr/bin/soffice', '/usr/local/bin/soffice', '/opt/libreoffice/program/soffice'].find((p) =>
  existsSync(p),
);

describe('exports in LibreOffice', () => {
  if (!soffice)
    console.warn(
      'skipped: LibreOffice (soffice) is not installed; `apt-get install libreoffice-calc-nogui` enables this test',
    );

  it.skipIf(!soffice)(
    'opens the orders CSV and XLSX and converts them to the same columns and rows',
    async () => {
      const c = CASES[0];
      const items = await allItems(c);
      const dir = mkdtempSync(join(tmpdir(), 'reports-lo-'));
      try {
        for (const format of ['csv', 'xlsx'] as const) {
          const input = join(dir, `in.${format}`);
          writeFileSync(input, (await download(c, format)).bytes);
          const outDir = join(dir, `out-${format}`);
          // UTF-8 (76), comma (44), double quote (34) both ways; a private profile so runs never share a lock.
          const args = [
            '--headless',
            '--norestore',
            `-env:UserInstallation=file://${dir}/profile`,
            '--convert-to',
            'csv:Text - txt - csv (StarCalc):44,34,76,1',
            '--outdir',
            outDir,
            input,
          ];
          if (format === 'csv') args.splice(2, 0, '--infilter=CSV:44,34,76,1');
          execFileSync(soffice!, args, { timeout: 120_000, stdio: 'pipe' });
          const text = readFileSync(join(outDir, 'in.csv'), 'utf8').replace(/^\uFEFF/, '');
          const [header, ...rows] = Papa.parse<string[]>(text, { skipEmptyLines: true }).data;
          expect(header, format).toEqual(c.headers);
          expect(
            rows.map((r) => Number(r[1])),
            format,
          ).toEqual(items.map((i) => i.id));
          expect(
            rows.map((r) => r[4]),
            format,
          ).toEqual(items.map((i) => i.client_name ?? ''));
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    300_000,
  );
});
