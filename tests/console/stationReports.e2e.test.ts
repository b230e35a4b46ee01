import { formatInTimeZone } from 'date-fns-tz';
import { beforeAll, expect, it } from 'vitest';
import { es } from '../../console/src/i18n/es.js';
import { ManualClock } from '../../infra/clock.js';
import { signInDriver } from '../support/actors.js';
import { consoleSuite, seriousViolations } from './consoleBrowser.js';

/**
 * A station's report history (issue 31): reached from the station's page, filtered by colour and by the
 * days an operator types (Caracas days), a page at a time through the API's cursor, in the API's order;
 * a refused filter says why on its own input.
 */
const s = es.stations;
const now = new Date();
const clock = new ManualClock(now);
/** The Caracas calendar day `back` days before today. */
const day = (back: number) => formatInTimeZone(now.getTime() - back * 86_400_000, 'America/Caracas', 'yyyy-MM-dd');
// 08:00 in Caracas on that day, and a minute later for each further report.
const at = (back: number, minute: number) => new Date(Date.parse(`${day(back)}T12:00:00Z`) + minute * 60_000);

type Shown = { id: number; color: string; wait_minutes: number };

consoleSuite('station report history', { clock, env: { STATION_REPORT_COOLDOWN_MINUTES: '0' } }, (c) => {
  let station: { id: number; name: string };
  const history = () => c.main().getByRole('region', { name: s.history });
  const rows = () => history().locator('tbody tr');
  const apiReports = async (qs: string) =>
    (await c.t.request('GET', `/api/v1/admin/stations/${station.id}/reports?${qs}`, { token: c.root.token })).body
      .items as Shown[];
  // Each row's colour and wait, as the table shows them.
  const shown = async () => {
    const [colors, waits] = await Promise.all(
      [2, 3].map((n) => history().locator(`tbody tr td:nth-child(${n})`).allTextContents()),
    );
    return colors.map((color, i) => `${color} ${waits[i]}`);
  };
  const filter = async (f: { color?: string; from?: string; to?: string; limit?: string }) => {
    const form = c.main().getByRole('search', { name: es.common.filter });
    await form.getByLabel(s.estadoLabel).selectOption(f.color ?? '');
    await form.getByLabel(s.fromDay).fill(f.from ?? '');
    await form.getByLabel(s.toDay).fill(f.to ?? '');
    await form.getByLabel(es.common.perPage).selectOption(f.limit ?? '25');
    await form.getByRole('button', { name: es.common.filter }).click();
  };

  beforeAll(async () => {
    const created = await c.t.request('POST', '/api/v1/admin/stations', {
      token: c.root.token,
      body: {
        name: 'Llenadero El Valle',
        address: 'Av. Intercomunal',
        latitude: 10.46,
        longitude: -66.9,
        tipo: 'AGUA',
      },
    });
    expect(created.status).toBe(201);
    station = created.body.station;
    // Twelve reports over three days: five green, then red, yellow, red and closed, then three green.
    clock.set(at(3, 0));
    const driver = await signInDriver(c.t, { name: 'Reportero Fiel' });
    const days: [number, string[]][] = [
      [3, ['GREEN', 'GREEN', 'GREEN', 'GREEN', 'GREEN']],
      [2, ['RED', 'YELLOW', 'RED', 'CLOSED']],
      [1, ['GREEN', 'GREEN', 'GREEN']],
    ];
    for (const [back, colors] of days)
      for (const [minute, color] of colors.entries()) {
        clock.set(at(back, minute));
        const r = await c.t.request('POST', `/api/v1/stations/${station.id}/reports`, {
          token: driver.token,
          body: { color, waitMinutes: 10 + minute, driverLat: 10.46, driverLng: -66.9 },
        });
        expect(r.status).toBe(200);
      }
    clock.set(now);
  });

  it("is reached from the station's page and pages through the cursor in the API's order", async () => {
    await c.open(`/stations/${station.id}`);
    await c.main().getByRole('link', { name: s.historyLink }).click();
    await c
      .main()
      .getByRole('heading', { level: 1, name: s.historyTitle(station.name) })
      .waitFor();
    await expect.poll(() => rows().count()).toBe(12);
    expect(await seriousViolations(c.page)).toEqual([]);

    await filter({ limit: '10' });
    await expect.poll(() => rows().count()).toBe(10);
    await c.main().getByText(s.shown(10, false)).waitFor();
    await c.main().getByRole('button', { name: es.common.more }).click();
    await expect.poll(() => rows().count()).toBe(12);
    await c.main().getByText(s.shown(12, true)).waitFor();
    expect(await c.main().getByRole('button', { name: es.common.more }).count()).toBe(0);
    const all = await apiReports('limit=100');
    expect(await shown()).toEqual(all.map((r) => `${s.color[r.color]} ${r.wait_minutes}`));
    expect(c.pageErrors).toEqual([]);
  });

  it('filters by colour and by Caracas days; a range ending before it starts is refused on its input', async () => {
    await c.open(`/stations/${station.id}/reports`);
    await filter({ color: 'rojo' });
    await expect.poll(() => rows().count()).toBe(2);
    expect(await shown()).toEqual([`${s.color.rojo} 12`, `${s.color.rojo} 10`]);

    await filter({ from: day(2), to: day(2) });
    await expect.poll(() => rows().count()).toBe(4);
    expect(await shown()).toEqual([
      `${s.color.cerrada} 13`,
      `${s.color.rojo} 12`,
      `${s.color.amarillo} 11`,
      `${s.color.rojo} 10`,
    ]);
    await filter({ color: 'verde', from: day(2) });
    await expect.poll(() => rows().count()).toBe(3);

    await filter({ from: day(1), to: day(3) });
    const to = c.main().getByLabel(s.toDay);
    await expect.poll(() => to.getAttribute('aria-invalid')).toBe('true');
    await c.main().getByText('No puede ser anterior a la fecha inicial.').waitFor();
    expect(await rows().count()).toBe(0);
    expect(await seriousViolations(c.page)).toEqual([]);
    expect(c.pageErrors).toEqual([]);
  });
});
