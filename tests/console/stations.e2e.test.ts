import { readFileSync } from 'node:fs';
import Papa from 'papaparse';
import { expect, it } from 'vitest';
import { es } from '../../console/src/i18n/es.js';
import { signInDriver } from '../support/actors.js';
import { consoleSuite, seriousViolations } from './consoleBrowser.js';

/**
 * The stations screens against the real service (issue 31): created from the form (a refusal on its
 * fields first), found by the list's filters, edited, deactivated and a comment moderated after a
 * confirmation, and a CSV imported inline and as a job whose status the page follows.
 */
const s = es.stations;

consoleSuite('stations', {}, (c) => {
  const api = async (method: string, path: string, body?: unknown) =>
    c.t.request(method, `/api/v1${path}`, { token: c.root.token, body });
  const stationsNamed = async (q: string) =>
    (await api('GET', `/admin/stations?q=${encodeURIComponent(q)}`)).body.items as {
      id: number;
      name: string;
      estado: string;
    }[];
  const create = async (name: string, tipo: 'AGUA' | 'GASOLINA', latitude = 10.49) => {
    const r = await api('POST', '/admin/stations', {
      name,
      address: 'Av. Principal',
      latitude,
      longitude: -66.88,
      tipo,
    });
    expect(r.status).toBe(201);
    return r.body.station as { id: number; name: string };
  };

  it('creates a station: coordinates outside Venezuela are refused on both coordinate fields first', async () => {
    await c.open('/stations/new');
    const form = c.main().getByRole('form', { name: s.new });
    await form.getByLabel(s.name).fill('Llenadero El Ávila');
    await form.getByLabel(s.address).fill('Av. Boyacá, Caracas');
    await form.getByLabel(s.latitude).fill('40.4');
    await form.getByLabel(s.longitude).fill('-3.7');
    await form.getByRole('button', { name: es.common.save }).click();
    await expect.poll(() => form.getByText(s.coordsOutOfRange).count()).toBe(2);
    expect(await seriousViolations(c.page)).toEqual([]);
    expect(await stationsNamed('Llenadero El Ávila')).toEqual([]);
    await form.getByLabel(s.latitude).fill('10,5');
    await form.getByLabel(s.longitude).fill('-66.85');
    await form.getByLabel(s.opening).fill('06:30');
    await form.getByRole('button', { name: es.common.save }).click();
    await c.main().getByRole('heading', { level: 1, name: 'Llenadero El Ávila' }).waitFor();
    const [created] = await stationsNamed('Llenadero El Ávila');
    expect(created.estado).toBe('ACTIVA');
    const detail = (await api('GET', `/admin/stations/${created.id}`)).body.station;
    expect(detail).toMatchObject({
      latitude: 10.5,
      longitude: -66.85,
      tipo: 'AGUA',
      opening_time: '06:30',
      city: 'Caracas',
    });
    expect(await seriousViolations(c.page)).toEqual([]);
  });

  it('lists stations by type and text with Spanish labels', async () => {
    await create('Estación Gasolina Norte', 'GASOLINA', 10.47);
    await create('Estación Agua Norte', 'AGUA', 10.46);
    await c.open('/stations');
    await c.main().locator('table tbody tr').first().waitFor();
    await c.main().getByLabel(s.q).fill('norte');
    await c.main().getByLabel(s.tipoLabel).selectOption('GASOLINA');
    await c.main().getByRole('button', { name: es.common.filter }).click();
    await expect.poll(() => c.main().locator('table tbody tr').count()).toBe(1);
    const row = c.main().locator('table tbody tr').first();
    await row.getByRole('link', { name: 'Estación Gasolina Norte' }).waitFor();
    await row.getByRole('cell', { name: s.tipo.GASOLINA, exact: true }).waitFor();
    await row.getByRole('cell', { name: s.estado.ACTIVA, exact: true }).waitFor();
    expect(await seriousViolations(c.page)).toEqual([]);
  });

  it('edits a station, deactivates it after a confirmation, and moderates a driver’s comment', async () => {
    const station = await create('Pozo La Castellana', 'AGUA', 10.5);
    const driver = await signInDriver(c.t, { name: 'Vecina Comentarista' });
    const posted = await c.t.request('POST', `/api/v1/stations/${station.id}/comments`, {
      token: driver.token,
      body: { content: 'Hay cola desde las cinco' },
    });
    expect(posted.status).toBe(201);
    await c.open(`/stations/${station.id}`);
    await c.main().getByRole('heading', { level: 1, name: 'Pozo La Castellana' }).waitFor();
    const form = c.main().getByRole('form', { name: s.edit });
    await form.getByLabel(s.address).fill('Calle Mohedano, La Castellana');
    await form.getByRole('button', { name: es.common.save }).click();
    await form.getByText(s.saved).waitFor();
    expect((await api('GET', `/admin/stations/${station.id}`)).body.station.address).toBe(
      'Calle Mohedano, La Castellana',
    );

    await c.main().getByRole('button', { name: s.deactivate }).click();
    const confirm = c.main().getByRole('alertdialog', { name: s.deactivate });
    await confirm.getByText(s.statusConfirm('Pozo La Castellana', s.estado.INACTIVA)).waitFor();
    expect((await api('GET', `/admin/stations/${station.id}`)).body.station.estado).toBe('ACTIVA');
    expect(await seriousViolations(c.page)).toEqual([]);
    await confirm.getByRole('button', { name: es.common.confirm }).click();
    await c.main().getByText(s.statusChanged(s.estado.INACTIVA)).waitFor();
    expect((await api('GET', `/admin/stations/${station.id}`)).body.station.estado).toBe('INACTIVA');

    const comments = c.main().getByRole('region', { name: s.comments });
    await comments.getByText('Hay cola desde las cinco').waitFor();
    await comments.getByRole('button', { name: s.moderate }).click();
    const moderate = c.main().getByRole('alertdialog', { name: s.moderate });
    await moderate.getByText(s.moderateConfirm(`Vecina Comentarista (${s.role.DRIVER})`)).waitFor();
    await moderate.getByRole('button', { name: es.common.confirm }).click();
    await c.main().getByText(s.moderated).waitFor();
    expect((await api('GET', `/admin/stations/${station.id}/comments`)).body.items).toEqual([]);
    await expect.poll(() => comments.getByText('Hay cola desde las cinco').count()).toBe(0);
  });

  it('downloads the template with Spanish headers and imports a file headed by them, its skipped row explained in Spanish', async () => {
    await c.open('/stations/import');
    const [download] = await Promise.all([
      c.page.waitForEvent('download'),
      c.main().getByRole('button', { name: s.templateSamples }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('plantilla_estaciones.csv');
    const template = Papa.parse<string[]>(
      readFileSync(await download.path(), 'utf8')
        .replace(/^\uFEFF/, '')
        .trim(),
    );
    expect(template.data[0]).toEqual([
      'Nombre',
      'Dirección',
      'Latitud',
      'Longitud',
      'Tipo',
      'Descripción',
      'Punto de referencia',
      'Ciudad',
      'Hora de apertura',
      'Hora de cierre',
    ]);
    // A skipped row names its column as the template heads it.
    expect(template.data[0]).toEqual(Object.values(s.columns));
    expect(template.data).toHaveLength(4);
    const csv = [
      'Nombre,Dirección,Latitud,Longitud,Tipo',
      'Importada Uno,Av. Uno,10.41,-66.81,AGUA',
      'Importada Dos,Av. Dos,10.42,-66.82,GASOLINA',
      'Importada Mala,Av. Tres,10.43,-66.83,DIESEL',
    ].join('\n');
    await c
      .main()
      .getByLabel(s.file)
      .setInputFiles({ name: 'estaciones.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await c.main().getByRole('button', { name: s.upload, exact: true }).click();
    const report = c.main().getByRole('region', { name: s.importReport });
    await report.getByText(s.createdCount).waitFor();
    expect(await report.locator('dd').allTextContents()).toEqual(['3', '2', '0', '1']);
    await report.getByRole('cell', { name: 'Tipo: Debe ser AGUA o GASOLINA.' }).waitFor();
    expect(await seriousViolations(c.page)).toEqual([]);
    expect((await stationsNamed('Importada')).map((x) => x.name).sort()).toEqual(['Importada Dos', 'Importada Uno']);
  });

  // Files written to the spec's template (English headers) keep importing.
  it('imports a large file with the English headers as a job and follows its status to completion', async () => {
    await c.open('/stations/import');
    const rows = Array.from(
      { length: 101 },
      (_, i) => `Lote ${i + 1},Calle ${i + 1},${(9 + i * 0.01).toFixed(2)},-67.50,AGUA`,
    );
    const csv = ['name,address,latitude,longitude,tipo', ...rows].join('\n');
    await c
      .main()
      .getByLabel(s.file)
      .setInputFiles({ name: 'lote.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await c.main().getByRole('button', { name: s.upload, exact: true }).click();
    await c
      .main()
      .getByRole('heading', { level: 1, name: new RegExp(`^${s.job} #\\d+$`) })
      .waitFor();
    await c.main().getByText(s.jobStatus.COMPLETED).waitFor({ timeout: 30_000 });
    const report = c.main().getByRole('region', { name: s.importReport });
    expect(await report.locator('dd').allTextContents()).toEqual(['101', '101', '0', '0']);
    expect(await seriousViolations(c.page)).toEqual([]);
    expect(c.pageErrors).toEqual([]);
  });
});
