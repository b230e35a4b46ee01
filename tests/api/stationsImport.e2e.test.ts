import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin, signInDriver } from '../support/actors.js';
import { startTestService, type TestService } from '../support/testService.js';

const HEADER = 'name,address,latitude,longitude,tipo,description,landmark,city,opening_time,closing_time';
const SPANISH_HEADER =
  'Nombre,Dirección,Latitud,Longitud,Tipo,Descripción,Punto de referencia,Ciudad,Hora de apertura,Hora de cierre';

/** n valid rows, each its own station (distinct names, 1 km apart). */
const rows = (n: number, prefix: string) =>
  Array.from(
    { length: n },
    (_, i) => `${prefix} ${i},Calle ${i},${(8 + i * 0.001).toFixed(4)},-66.5,AGUA,,,Maturín,,`,
  ).join('\n');

describe('stations: bulk import', () => {
  let t: TestService;
  let admin: string;
  let otherAdmin: string;
  const clock = new ManualClock('2026-03-01T10:00:00Z');

  /** The spec's form: multipart/form-data with a `file` part. */
  const upload = async (
    content: string | Uint8Array<ArrayBuffer>,
    opts: { token?: string; filename?: string } = {},
  ) => {
    const form = new FormData();
    form.set('file', new Blob([content], { type: 'text/csv' }), opts.filename ?? 'estaciones.csv');
    const res = await fetch(`${t.baseUrl}/api/v1/admin/stations/bulk-import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${opts.token ?? admin}` },
      body: form,
    });
    return { status: res.status, body: await res.json() };
  };
  /** The same file sent as a raw text/csv body. */
  const uploadRaw = async (content: string | Uint8Array<ArrayBuffer>, contentType = 'text/csv') => {
    const res = await fetch(`${t.baseUrl}/api/v1/admin/stations/bulk-import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': contentType },
      body: content,
    });
    return { status: res.status, body: await res.json() };
  };
  const listNames = async (q: string) =>
    (
      await t.request('GET', `/api/v1/admin/stations?limit=100&q=${encodeURIComponent(q)}`, { token: admin })
    ).body.items.map((i: { name: string }) => i.name);

  beforeAll(async () => {
    t = await startTestService({ clock });
    admin = (await signInAdmin(t)).token;
    otherAdmin = (await signInAdmin(t, { superAdmin: false })).token;
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('template: plantilla_estaciones.csv with the ten columns in order; con_ejemplos adds three rows', async () => {
    const plain = await fetch(`${t.baseUrl}/api/v1/admin/stations/bulk-import/template`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(plain.headers.get('content-disposition')).toBe('attachment; filename="plantilla_estaciones.csv"');
    expect((await plain.text()).replace(/^\uFEFF/, '').trim()).toBe(HEADER);
    const withExamples = await fetch(`${t.baseUrl}/api/v1/admin/stations/bulk-import/template?con_ejemplos=true`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    const parsed = Papa.parse<string[]>((await withExamples.text()).replace(/^\uFEFF/, '').trim());
    expect(parsed.data[0].join(',')).toBe(HEADER);
    expect(parsed.data).toHaveLength(4);
    // The template's own examples import cleanly.
    const imported = await upload(
      await (
        await fetch(`${t.baseUrl}/api/v1/admin/stations/bulk-import/template?con_ejemplos=1`, {
          headers: { authorization: `Bearer ${admin}` },
        })
      ).text(),
    );
    expect(imported.body.report).toMatchObject({ processed: 3, created: 3, skipped: 0 });
    expect(
      (await t.request('GET', '/api/v1/admin/stations/bulk-import/template?con_ejemplos=quizas', { token: admin })).body
        .details.fieldErrors,
    ).toHaveProperty('con_ejemplos');
  });

  it('encabezados=es: the template an operator fills in has Spanish headers, and a file with them imports', async () => {
    const spanish = await fetch(
      `${t.baseUrl}/api/v1/admin/stations/bulk-import/template?con_ejemplos=true&encabezados=es`,
      { headers: { authorization: `Bearer ${admin}` } },
    );
    expect(spanish.status).toBe(200);
    expect(spanish.headers.get('content-disposition')).toBe('attachment; filename="plantilla_estaciones.csv"');
    const parsed = Papa.parse<string[]>((await spanish.text()).replace(/^\uFEFF/, '').trim());
    expect(parsed.data[0].join(',')).toBe(SPANISH_HEADER);
    expect(parsed.data).toHaveLength(4);
    const csv = [
      SPANISH_HEADER,
      'Llenadero Español,Av. Bolívar,9.75,-63.18,AGUA,,Frente al estadio,Maturín,07:00,17:00',
      'Sin Dirección,,9.76,-63.19,AGUA,,,,,',
    ].join('\r\n');
    expect((await upload(csv)).body.report).toEqual({
      processed: 2,
      created: 1,
      updated: 0,
      skipped: 1,
      skipped_rows: [{ line: 3, reason: expect.stringContaining('address') }],
    });
    const [item] = (await t.request('GET', '/api/v1/admin/stations?q=Llenadero%20Espa%C3%B1ol', { token: admin })).body
      .items;
    expect((await t.request('GET', `/api/v1/admin/stations/${item.id}`, { token: admin })).body.station).toMatchObject({
      address: 'Av. Bolívar',
      landmark: 'Frente al estadio',
      city: 'Maturín',
      opening_time: '07:00',
    });
    const missing = await upload('Nombre,Dirección,Latitud\nA,B,10.5\n');
    expect(missing.body).toMatchObject({ error: 'MissingHeaders', missing: ['longitude', 'tipo'] });
    const wrong = await t.request('GET', '/api/v1/admin/stations/bulk-import/template?encabezados=fr', {
      token: admin,
    });
    expect([wrong.status, Object.keys(wrong.body.details.fieldErrors)]).toEqual([422, ['encabezados']]);
  });

  it(
    'up to 100 rows are imported inline: created, updated (same ' +
      'name within 50 m) and skipped rows with line and reason',
    async () => {
      const csv = [
        HEADER,
        'Llenadero Norte,Av. 1,10.50,-66.90,AGUA,Con bomba,Frente a la plaza,Caracas,06:00,18:00',
        '',
        'Bomba Sur,"Calle 2, local 3",10.40,-66.95,gasolina,,,,,',
        'Sin tipo,Av. 3,10.45,-66.92,AIRE,,,,,',
        'Bogotá,Av. 4,4.71,-74.07,AGUA,,,,,',
        ',Av. 5,10.41,-66.91,AGUA,,,,25:00,',
        'Llenadero Norte,Av. 1 (nueva),10.5001,-66.9001,AGUA,,,,,',
      ].join('\r\n');
      const r = await upload(csv);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        report: {
          processed: 6,
          created: 2,
          updated: 1,
          skipped: 3,
          skipped_rows: [
            { line: 5, reason: expect.stringContaining('tipo') },
            { line: 6, reason: expect.stringContaining('CoordsOutOfRange') },
            { line: 7, reason: expect.stringMatching(/name.*opening_time|opening_time.*name/s) },
          ],
        },
      });
      const north = (await t.request('GET', '/api/v1/admin/stations?q=Llenadero%20Norte', { token: admin })).body.items;
      expect(north).toHaveLength(1);
      const detail = (await t.request('GET', `/api/v1/admin/stations/${north[0].id}`, { token: admin })).body.station;
      expect(detail).toMatchObject({
        address: 'Av. 1 (nueva)',
        latitude: 10.5001,
        description: null,
        opening_time: null,
        city: 'Caracas',
        tipo: 'AGUA',
        estado: 'ACTIVA',
      });
      const sur = (await t.request('GET', '/api/v1/admin/stations?q=Bomba%20Sur', { token: admin })).body.items[0];
      expect(sur).toMatchObject({ address: 'Calle 2, local 3', tipo: 'GASOLINA' });

      // The same file again creates nothing new.
      expect((await upload(csv)).body.report).toMatchObject({ processed: 6, created: 0, updated: 3, skipped: 3 });
    },
  );

  it(
    'accepts the CSV as a raw text/csv body, semicolons ' + 'and decimal commas (spreadsheet exports), and a BOM',
    async () => {
      const csv = '\uFEFFName;Address;Latitude;Longitude;Tipo\nPozo Coma;Calle 9;10,3;-66,8;AGUA\n';
      const r = await uploadRaw(csv);
      expect(r.status).toBe(200);
      expect(r.body.report).toEqual({ processed: 1, created: 1, updated: 0, skipped: 0, skipped_rows: [] });
      const item = (await t.request('GET', '/api/v1/admin/stations?q=Pozo%20Coma', { token: admin })).body.items[0];
      expect(
        (await t.request('GET', `/api/v1/admin/stations/${item.id}`, { token: admin })).body.station,
      ).toMatchObject({
        latitude: 10.3,
        longitude: -66.8,
      });
    },
  );

  it('422 InvalidEncoding, EmptyFile, MissingHeaders, TooManyRows, and ValidationError on file', async () => {
    const latin1 = new Uint8Array(Buffer.from(`${HEADER}\nEstación Ñ,Av.,10.5,-66.9,AGUA,,,,,\n`, 'latin1'));
    expect((await upload(latin1)).body.error).toBe('InvalidEncoding');
    expect((await uploadRaw(latin1)).body.error).toBe('InvalidEncoding');
    for (const empty of ['', '  \n\n', `${HEADER}\n\n`]) {
      const r = await upload(empty);
      expect([r.status, r.body.error]).toEqual([422, 'EmptyFile']);
    }
    const missing = await upload('name,address,lat,lng\nA,B,10.5,-66.9\n');
    expect(missing.status).toBe(422);
    expect(missing.body).toMatchObject({ error: 'MissingHeaders', missing: ['latitude', 'longitude', 'tipo'] });
    const tooMany = await upload(`${HEADER}\n${rows(2001, 'Demasiadas')}`);
    expect(tooMany.status).toBe(422);
    expect(tooMany.body).toMatchObject({ error: 'TooManyRows', total_rows: 2001 });
    expect(await listNames('Demasiadas')).toEqual([]);

    const big = `${HEADER}\n${'x'.repeat(5 * 1024 * 1024)}`;
    expect((await upload(big)).body).toMatchObject({
      error: 'ValidationError',
      details: { fieldErrors: { file: [expect.stringContaining('5 MB')] } },
    });
    expect((await uploadRaw(big)).body.details.fieldErrors).toHaveProperty('file');
    expect((await upload(`${HEADER}\n`, { filename: 'estaciones.xlsx' })).body.details.fieldErrors.file).toEqual([
      'must be a .csv or .txt file',
    ]);
    expect(
      (await upload(`${HEADER}\nA txt,B,10.5,-66.91,AGUA\n`, { filename: 'estaciones.TXT' })).body.report.created,
    ).toBe(1);
    const noFile = new FormData();
    noFile.set('archivo', 'x');
    const r = await fetch(`${t.baseUrl}/api/v1/admin/stations/bulk-import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
      body: noFile,
    });
    expect([r.status, (await r.json()).details.fieldErrors.file]).toEqual([422, ['is required']]);
    const json = await t.request('POST', '/api/v1/admin/stations/bulk-import', { token: admin, body: { file: 'x' } });
    expect([json.status, Object.keys(json.body.details.fieldErrors)]).toEqual([422, ['file']]);
  });

  it('over 100 rows: a job (202 PENDING) that only its admin reads, COMPLETED with its report', async () => {
    const csv =
      `${HEADER}\n${rows(150, 'Lote')}\n` + `Lote 0,Duplicada,8.0000,-66.5,AGUA,,,,,\nMal,Fila,x,-66.5,AGUA,,,,,\n`;
    const r = await upload(csv);
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ job_id: expect.any(Number), status: 'PENDING', total_rows: 152 });
    const jobPath = `/api/v1/admin/stations/bulk-import/${r.body.job_id}`;

    const foreign = await t.request('GET', jobPath, { token: otherAdmin });
    expect([foreign.status, foreign.body.error]).toEqual([403, 'Forbidden']);
    const unknown = await t.request('GET', '/api/v1/admin/stations/bulk-import/999999', { token: admin });
    expect([unknown.status, unknown.body.error]).toEqual([404, 'ImportJobNotFound']);
    expect(
      (await t.request('GET', '/api/v1/admin/stations/bulk-import/abc', { token: admin })).body.details.fieldErrors,
    ).toHaveProperty('jobId');

    // The scheduler's import job runs it; tick until done. One tick is enough unless a timer's run holds the
    // job, and then the ticks return at once: the bound is time (a loaded machine), not a number of ticks.
    let job = (await t.request('GET', jobPath, { token: admin })).body;
    for (
      const until = Date.now() + 60_000;
      Date.now() < until && job.status !== 'COMPLETED' && job.status !== 'FAILED';
    ) {
      await t.service.ctx.scheduler.tick();
      await new Promise((resolve) => setTimeout(resolve, 50));
      job = (await t.request('GET', jobPath, { token: admin })).body;
    }
    expect(job).toEqual({
      job_id: r.body.job_id,
      status: 'COMPLETED',
      total_rows: 152,
      report: {
        processed: 152,
        created: 150,
        updated: 1,
        skipped: 1,
        skipped_rows: [{ line: 153, reason: expect.stringContaining('latitude') }],
      },
      error: null,
      created_at: '2026-03-01T10:00:00.000Z',
      updated_at: '2026-03-01T10:00:00.000Z',
    });
    expect(await listNames('Lote ')).toHaveLength(100);
    expect((await t.request('GET', jobPath, { token: otherAdmin })).status).toBe(403);
  });

  it('import routes are for admins only', async () => {
    const d = await signInDriver(t, { approved: false });
    expect((await upload(`${HEADER}\n`, { token: d.token })).status).toBe(403);
    expect((await t.request('GET', '/api/v1/admin/stations/bulk-import/template', { token: d.token })).status).toBe(
      403,
    );
    expect((await t.request('GET', '/api/v1/admin/stations/bulk-import/1', { token: d.token })).status).toBe(403);
    expect((await t.request('GET', '/api/v1/admin/stations/bulk-import/1')).status).toBe(401);
  });
});
