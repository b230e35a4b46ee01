import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import {
  signInAdmin,
  signInClient,
  signInDriver,
  type SignedInDriver,
  type SignedInUser,
} from '../../tests/support/actors.js';
import { appendingNothing, startApiUnderTest, type ApiUnderTest } from '../../tests/support/apiSpecification.js';
import { call } from '../../tests/support/orderFlows.js';
import { SystemTimeClock } from '../../tests/support/systemTimeClock.js';

/** Metres per degree of latitude on the mean sphere that domain/geo.ts uses: a meridian offset is exact. */
const M_PER_DEG_LAT = (6_371_008.8 * Math.PI) / 180;
const north = (p: { latitude: number; longitude: number }, metres: number) => ({
  latitude: p.latitude + metres / M_PER_DEG_LAT,
  longitude: p.longitude,
});

const MARACAIBO = { latitude: 10.6427, longitude: -71.6125 };
const VALENCIA = { latitude: 10.162, longitude: -68.0077 };
const BARQUISIMETO = { latitude: 10.0678, longitude: -69.3474 };
const MERIDA = { latitude: 8.5897, longitude: -71.1561 };
const GUAYANA = { latitude: 8.3536, longitude: -62.6413 };
const CUMANA = { latitude: 10.4564, longitude: -64.1675 };

describe('stations: public directory and administration', () => {
  let t: ApiUnderTest;
  const request = appendingNothing(() => t);
  let api: ReturnType<typeof call>;
  let adminToken = '';
  let adminSignedInAt = 0;
  let driver: SignedInDriver;
  let driver2: SignedInDriver;
  let client: SignedInUser;
  const clock = new ManualClock('2026-03-01T10:00:00Z');

  const station = (over: Record<string, unknown> = {}) => ({
    name: 'Llenadero Central',
    address: 'Av. Principal, Sector Centro',
    latitude: VALENCIA.latitude,
    longitude: VALENCIA.longitude,
    tipo: 'AGUA',
    ...over,
  });
  const create = async (over: Record<string, unknown> = {}) => {
    const r = await api.post('/admin/stations', admin, station(over));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.station as { id: number; [k: string]: unknown };
  };
  const reportBody = (stationId: number, over: Record<string, unknown> = {}) => ({
    stationId,
    color: 'GREEN',
    waitMinutes: 10,
    comment: 'Fluye bien',
    driverLat: 10.1,
    driverLng: -68,
    ...over,
  });

  /** Admin JWTs live 60 minutes and these tests move the clock by days: sign in again before each test. */
  let admin = '';
  const freshAdmin = async () => {
    adminToken = (await signInAdmin(t)).token;
    adminSignedInAt = clock.now().getTime();
    admin = adminToken;
  };
  beforeEach(async () => {
    if (!adminToken || clock.now().getTime() - adminSignedInAt > 30 * 60_000) await freshAdmin();
  });

  beforeAll(async () => {
    t = await startApiUnderTest({ clock });
    api = call({ ...t, request });
    [driver, driver2, client] = await Promise.all([
      signInDriver(t, { approved: false, name: 'Pedro Cisterna' }),
      signInDriver(t, { approved: false, name: 'Luis Camión' }),
      signInClient(t, undefined, 'Ana Cliente'),
    ]);
  });
  afterAll(async () => {
    await t?.stop();
  });

  describe('admin create, read, update', () => {
    it('creates a station with the spec defaults and reads it back', async () => {
      const r = await api.post(
        '/admin/stations',
        admin,
        station({ name: '  Pozo Los Guayos ', latitude: 10.18, longitude: -67.94, description: 'Bomba eléctrica' }),
      );
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        station: {
          id: expect.any(Number),
          name: 'Pozo Los Guayos',
          address: 'Av. Principal, Sector Centro',
          description: 'Bomba eléctrica',
          landmark: null,
          latitude: 10.18,
          longitude: -67.94,
          city: 'Caracas',
          tipo: 'AGUA',
          estado: 'ACTIVA',
          is_verified: true,
          opening_time: null,
          closing_time: null,
          created_at: '2026-03-01T10:00:00.000Z',
          updated_at: '2026-03-01T10:00:00.000Z',
        },
      });
      const detail = await api.get(`/admin/stations/${r.body.station.id}`, admin);
      expect(detail.status).toBe(200);
      expect(detail.body).toEqual({
        station: r.body.station,
        reports: [],
        summary: {
          total_reports_30d: 0,
          avg_wait_minutes: null,
          color_breakdown: { verde: 0, amarillo: 0, rojo: 0, cerrada: 0 },
        },
      });
    });

    it('answers 422 ValidationError naming each bad field', async () => {
      const r = await api.post('/admin/stations', admin, {
        address: 'x'.repeat(281),
        latitude: 91,
        longitude: 'west',
        tipo: 'AGUAS',
        opening_time: '25:00',
        city: 'c'.repeat(121),
      });
      expect(r.status).toBe(422);
      expect(r.body.error).toBe('ValidationError');
      expect(Object.keys(r.body.details.fieldErrors).sort()).toEqual([
        'address',
        'city',
        'latitude',
        'longitude',
        'name',
        'opening_time',
        'tipo',
      ]);
      const patch = await api.patch(
        `/admin/stations/${(await create({ name: 'Para validar', latitude: 10.2, longitude: -67.9 })).id}`,
        admin,
        { name: '', closing_time: '7:00' },
      );
      expect(patch.status).toBe(422);
      expect(Object.keys(patch.body.details.fieldErrors).sort()).toEqual(['closing_time', 'name']);
    });

    it('refuses coordinates outside Venezuela (422 CoordsOutOfRange), on create and on a move', async () => {
      const bogota = await api.post(
        '/admin/stations',
        admin,
        station({ name: 'Bogotá', latitude: 4.711, longitude: -74.0721 }),
      );
      expect(bogota.status).toBe(422);
      expect(bogota.body.error).toBe('CoordsOutOfRange');
      const swapped = await api.post(
        '/admin/stations',
        admin,
        station({ name: 'Invertida', latitude: -66.9, longitude: 10.5 }),
      );
      expect(swapped.body.error).toBe('CoordsOutOfRange');
      const s = await create({ name: 'Se queda', latitude: 10.25, longitude: -67.9 });
      const moved = await api.patch(`/admin/stations/${s.id}`, admin, { latitude: 40.4168, longitude: -3.7038 });
      expect(moved.status).toBe(422);
      expect(moved.body.error).toBe('CoordsOutOfRange');
      expect((await api.get(`/admin/stations/${s.id}`, admin)).body.station).toMatchObject({
        latitude: 10.25,
        longitude: -67.9,
      });
    });

    it(
      'rejects the same name within 50 m (49 m: DuplicateStation; ' + '51 m: created), ignoring case and accents',
      async () => {
        const origin = { latitude: 10.3, longitude: -67.8 };
        const first = await create({ name: 'Estación Norte', ...origin });
        const at49 = await api.post(
          '/admin/stations',
          admin,
          station({ name: 'ESTACION  norte', ...north(origin, 49) }),
        );
        expect(at49.status).toBe(422);
        expect(at49.body).toMatchObject({ error: 'DuplicateStation', station_id: first.id });
        const at51 = await api.post(
          '/admin/stations',
          admin,
          station({ name: 'Estación Norte', ...north(origin, 51) }),
        );
        expect(at51.status).toBe(201);
        const otherName = await api.post('/admin/stations', admin, station({ name: 'Estación Sur', ...origin }));
        expect(otherName.status).toBe(201);
        // A rename or a move into a same-named neighbour's 50 m is the same duplicate.
        const renamed = await api.patch(`/admin/stations/${otherName.body.station.id}`, admin, {
          name: 'estación norte',
        });
        expect(renamed.status).toBe(422);
        expect(renamed.body.error).toBe('DuplicateStation');
        const moved = await api.patch(`/admin/stations/${at51.body.station.id}`, admin, north(origin, 30));
        expect(moved.body.error).toBe('DuplicateStation');
        // A station is no duplicate of itself.
        expect(
          (await api.patch(`/admin/stations/${first.id}`, admin, { name: 'Estación Norte', ...north(origin, -10) }))
            .status,
        ).toBe(200);
      },
    );

    it('two concurrent creates of one station: exactly one is created', async () => {
      const body = station({ name: 'Carrera', latitude: 10.35, longitude: -67.7 });
      const [a, b] = await Promise.all([
        api.post('/admin/stations', admin, body),
        api.post('/admin/stations', admin, body),
      ]);
      expect([a.status, b.status].sort()).toEqual([201, 422]);
      expect([a.body.error, b.body.error]).toContain('DuplicateStation');
    });

    it('updates only the fields given; nullable fields accept null', async () => {
      const s = await create({
        name: 'Parcial',
        latitude: 10.4,
        longitude: -67.6,
        landmark: 'Frente al liceo',
        opening_time: '06:00',
        closing_time: '18:00',
      });
      clock.advance(60_000);
      const r = await api.patch(`/admin/stations/${s.id}`, admin, {
        address: 'Calle Nueva',
        tipo: 'GASOLINA',
        landmark: null,
        closing_time: null,
        city: 'Valencia',
        is_verified: false,
      });
      expect(r.status).toBe(200);
      expect(r.body.station).toEqual({
        ...s,
        address: 'Calle Nueva',
        tipo: 'GASOLINA',
        landmark: null,
        closing_time: null,
        city: 'Valencia',
        is_verified: false,
        updated_at: '2026-03-01T10:01:00.000Z',
      });
      expect((await api.patch('/admin/stations/999999', admin, { name: 'x' })).body.error).toBe('StationNotFound');
    });

    it('lists newest first with a cursor, filtered by tipo, estado and q', async () => {
      clock.advance(60_000);
      const made = [];
      for (const [i, tipo] of (['AGUA', 'GASOLINA', 'AGUA'] as const).entries()) {
        made.push(
          await create({
            name: `Listado ${i} 100%_x`,
            address: `Calle Lista ${i}`,
            tipo,
            latitude: 10.5 + i / 100,
            longitude: -67.5,
          }),
        );
        clock.advance(1000);
      }
      await api.patch(`/admin/stations/${made[2].id}/status`, admin, { estado: 'INACTIVA' });
      const all = await api.get('/admin/stations?q=listado&limit=2', admin);
      expect(all.status).toBe(200);
      expect(all.body.items.map((i: { id: number }) => i.id)).toEqual([made[2].id, made[1].id]);
      expect(all.body.items[0]).toEqual({
        id: made[2].id,
        name: 'Listado 2 100%_x',
        address: 'Calle Lista 2',
        tipo: 'AGUA',
        estado: 'INACTIVA',
        last_report_at: null,
      });
      expect(all.body.has_more).toBe(true);
      const next = await api.get(`/admin/stations?q=listado&limit=2&cursor=${all.body.next_cursor}`, admin);
      expect(next.body).toEqual({
        items: [expect.objectContaining({ id: made[0].id })],
        next_cursor: null,
        has_more: false,
      });
      const ids = async (qs: string) =>
        (await api.get(`/admin/stations?q=listado&${qs}`, admin)).body.items.map((i: { id: number }) => i.id);
      expect(await ids('tipo=GASOLINA')).toEqual([made[1].id]);
      expect(await ids('estado=activa')).toEqual([made[1].id, made[0].id]);
      expect(await ids('estado=inactiva')).toEqual([made[2].id]);
      expect(await ids('estado=todas')).toHaveLength(3);
      // % and _ are literal characters in q, and q matches the address too.
      expect((await api.get('/admin/stations?q=100%25_x', admin)).body.items).toHaveLength(3);
      expect((await api.get('/admin/stations?q=100%25_', admin)).body.items).toHaveLength(3);
      expect((await api.get('/admin/stations?q=Lista%201', admin)).body.items.map((i: { id: number }) => i.id)).toEqual(
        [made[1].id],
      );
      const bad = await api.get(
        `/admin/stations?estado=abierta&tipo=AIRE&limit=0&cursor=nope&q=${'q'.repeat(121)}`,
        admin,
      );
      expect(bad.status).toBe(422);
      expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual(['estado', 'limit', 'q', 'tipo']);
      // Either case as the document lists it, nothing else: not blank, not mixed.
      expect(await ids('tipo=gasolina&estado=ACTIVA')).toEqual([made[1].id]);
      for (const qs of ['tipo=&estado=', 'tipo=Agua&estado=Activa']) {
        const refused = await api.get(`/admin/stations?${qs}`, admin);
        expect(refused.status).toBe(422);
        expect(Object.keys(refused.body.details.fieldErrors).sort()).toEqual(['estado', 'tipo']);
      }
      expect((await api.get('/admin/stations?cursor=nope', admin)).body.details.fieldErrors).toHaveProperty('cursor');
    });

    it('admin routes: 401 without a token, 403 for app users, 404 StationNotFound for unknown ids', async () => {
      expect((await api.get('/admin/stations')).status).toBe(401);
      expect((await api.get('/admin/stations', driver.token)).status).toBe(403);
      expect((await api.post('/admin/stations', client.token, station())).status).toBe(403);
      for (const [method, path, body] of [
        ['get', '/admin/stations/999999'],
        ['patch', '/admin/stations/999999/status', { estado: 'ACTIVA' }],
        ['del', '/admin/stations/999999'],
        ['get', '/admin/stations/999999/reports'],
        ['get', '/admin/stations/999999/comments'],
        ['del', '/admin/stations/999999/comments/1'],
      ] as const) {
        const r = await (
          api[method] as (p: string, tk?: string, b?: unknown) => Promise<{ status: number; body: { error: string } }>
        )(path, admin, body);
        expect([path, r.status, r.body.error]).toEqual([path, 404, 'StationNotFound']);
      }
      expect(
        (await api.patch('/admin/stations/1/status', admin, { estado: 'CERRADA' })).body.details.fieldErrors,
      ).toHaveProperty('estado');
    });
  });

  describe('public directory', () => {
    it(
      'nearby: active stations within radiusKm, nearest first, ' +
        'with distance and type filter; /stations is the same',
      async () => {
        const water = await create({ name: 'Agua Maracaibo', ...MARACAIBO });
        const fuel = await create({ name: 'Gasolina Maracaibo', tipo: 'GASOLINA', ...north(MARACAIBO, 2000) });
        const far = await create({ name: 'Agua lejos', ...north(MARACAIBO, 12_000) });
        const off = await create({ name: 'Inactiva Maracaibo', ...north(MARACAIBO, 500) });
        await api.patch(`/admin/stations/${off.id}/status`, admin, { estado: 'INACTIVA' });
        const q = `lat=${MARACAIBO.latitude}&lng=${MARACAIBO.longitude}`;
        const r = await api.get(`/stations/nearby?${q}`, client.token);
        expect(r.status).toBe(200);
        expect(r.body.stations.map((s: { id: number }) => s.id)).toEqual([water.id, fuel.id]);
        expect(r.body.stations[1]).toEqual({
          id: fuel.id,
          name: 'Gasolina Maracaibo',
          address: 'Av. Principal, Sector Centro',
          latitude: fuel.latitude,
          longitude: fuel.longitude,
          city: 'Caracas',
          station_type: 'FUEL',
          is_verified: true,
          is_active: true,
          current_status: null,
          distance_km: 2,
        });
        expect((await api.get(`/stations?${q}`, driver.token)).body).toEqual(r.body);
        expect(
          (await api.get(`/stations/nearby?${q}&radiusKm=15`, client.token)).body.stations.map(
            (s: { id: number }) => s.id,
          ),
        ).toEqual([water.id, fuel.id, far.id]);
        expect(
          (await api.get(`/stations/nearby?${q}&radiusKm=15&type=FUEL`, admin)).body.stations.map(
            (s: { id: number }) => s.id,
          ),
        ).toEqual([fuel.id]);
        expect((await api.get(`/stations/nearby?${q}`)).status).toBe(401);
      },
    );

    it('nearby: 422 naming lat, lng, radiusKm and type', async () => {
      const r = await api.get('/stations/nearby?lng=-200&radiusKm=0&type=GAS', client.token);
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.details.fieldErrors).sort()).toEqual(['lat', 'lng', 'radiusKm', 'type']);
      // Blank is a value like any other, and WATER or FUEL and a number have none.
      const blank = await api.get('/stations/nearby?lat=10&lng=-66&radiusKm=&type=', client.token);
      expect(Object.keys(blank.body.details.fieldErrors).sort()).toEqual(['radiusKm', 'type']);
      expect(
        Object.keys(
          (await api.get('/stations?lat=91&lng=0&radiusKm=100.5', client.token)).body.details.fieldErrors,
        ).sort(),
      ).toEqual(['lat', 'radiusKm']);
    });

    it('ignores a query parameter it does not know (an app of another version may send one)', async () => {
      const known = await api.get('/stations/nearby?lat=10.5&lng=-66.9&radiusKm=5', client.token);
      const more = await api.get('/stations/nearby?lat=10.5&lng=-66.9&radiusKm=5&appVersion=2.3&x=', client.token);
      expect([known.status, more.status]).toEqual([200, 200]);
      expect(more.body).toEqual(known.body);
    });

    it(
      'a driver reports; the traffic light follows recent ' + 'reports (recency-weighted) and the cooldown holds',
      async () => {
        const s = await create({ name: 'Semáforo Barquisimeto', ...BARQUISIMETO });
        const first = await api.post(
          '/stations/report',
          driver.token,
          reportBody(s.id, { color: 'YELLOW', waitMinutes: 20, comment: '  Cola moderada ' }),
        );
        expect(first.status).toBe(200);
        expect(first.body).toEqual({
          report: {
            id: expect.any(Number),
            station_id: s.id,
            driver_id: driver.driverId,
            color: 'YELLOW',
            wait_minutes: 20,
            comment: 'Cola moderada',
            driver_lat: 10.1,
            driver_lng: -68,
            created_at: clock.now().toISOString(),
          },
          confidence: 0.5,
        });
        const second = await api.post(`/stations/${s.id}/reports`, driver2.token, {
          color: 'YELLOW',
          waitMinutes: 40,
          driverLat: 10.07,
          driverLng: -69.35,
        });
        expect(second.status).toBe(200);
        expect(second.body.report).toMatchObject({
          station_id: s.id,
          driver_id: driver2.driverId,
          color: 'YELLOW',
          wait_minutes: 40,
          comment: null,
        });
        expect(second.body.confidence).toBe(0.75);
        const reportedAt = clock.now().toISOString();

        // The same driver again within 15 minutes: 429 Cooldown with the minutes left (and Retry-After).
        clock.advance(14 * 60_000 + 1000);
        const early = await request('POST', '/api/v1/stations/report', {
          token: driver.token,
          body: reportBody(s.id, { color: 'RED' }),
        });
        expect(early.status).toBe(429);
        expect(early.body).toMatchObject({ error: 'Cooldown', retryAfterMinutes: 1 });
        expect(early.headers.get('retry-after')).toBe('60');
        clock.advance(59_000);

        // 15 minutes on: allowed. RED fresh (weight 1) against two
        // YELLOW 15 minutes old (2 × 0.5^0.5 ≈ 1.41): still YELLOW.
        const red = await api.post(`/stations/${s.id}/reports`, driver.token, {
          color: 'RED',
          waitMinutes: 90,
          driverLat: 10,
          driverLng: -69,
        });
        expect(red.status).toBe(200);
        const detail = await api.get(`/stations/${s.id}`, client.token);
        expect(detail.status).toBe(200);
        expect(detail.body.station.current_status).toEqual({
          current_color: 'YELLOW',
          confidence: 0.48, // agreement 1.414/2.414 × evidence (1 − 0.5^2.414)
          report_count: 3,
          avg_wait_minutes: 55, // (20·0.707 + 40·0.707 + 90·1) / 2.414
          last_report_at: clock.now().toISOString(),
        });
        expect(detail.body.reports).toEqual([
          {
            id: red.body.report.id,
            color: 'RED',
            waitMinutes: 90,
            comment: null,
            createdAt: clock.now().toISOString(),
          },
          { id: second.body.report.id, color: 'YELLOW', waitMinutes: 40, comment: null, createdAt: reportedAt },
          {
            id: first.body.report.id,
            color: 'YELLOW',
            waitMinutes: 20,
            comment: 'Cola moderada',
            createdAt: reportedAt,
          },
        ]);

        // Past the status window (120 min) the last colour stays, with confidence 0.
        clock.advance(121 * 60_000);
        const stale = await api.get(`/stations/${s.id}`, driver.token);
        expect(stale.body.station.current_status).toEqual({
          current_color: 'RED',
          confidence: 0,
          report_count: 0,
          avg_wait_minutes: null,
          last_report_at: red.body.report.created_at,
        });
      },
    );

    it('two concurrent reports by one driver on one station: one is taken, the other is Cooldown', async () => {
      const s = await create({ name: 'Carrera de reportes', ...MERIDA });
      const [a, b] = await Promise.all([
        api.post('/stations/report', driver.token, reportBody(s.id)),
        api.post(`/stations/${s.id}/reports`, driver.token, { color: 'RED', driverLat: 8.5, driverLng: -71.1 }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 429]);
      expect([a, b].find((r) => r.status === 429)!.body).toMatchObject({ error: 'Cooldown', retryAfterMinutes: 15 });
      expect((await api.get(`/stations/${s.id}`, client.token)).body.reports).toHaveLength(1);
      // Different drivers on one station at once: both count.
      const third = await signInDriver(t, { approved: false });
      const [c, d] = await Promise.all([
        api.post('/stations/report', driver2.token, reportBody(s.id, { color: 'RED' })),
        api.post(`/stations/${s.id}/reports`, third.token, { color: 'RED', driverLat: 8.5, driverLng: -71.1 }),
      ]);
      expect([c.status, d.status]).toEqual([200, 200]);
      expect((await api.get(`/stations/${s.id}`, client.token)).body.station.current_status).toMatchObject({
        current_color: 'RED',
        report_count: 3,
      });
    });

    it(
      'reports: DRIVER only, 404 StationNotFound for ' + 'unknown or inactive stations, 422 naming bad fields',
      async () => {
        const s = await create({ name: 'Reglas de reporte', ...CUMANA });
        expect((await api.post('/stations/report', client.token, reportBody(s.id))).status).toBe(403);
        expect((await api.post('/stations/report', admin, reportBody(s.id))).status).toBe(403);
        expect((await api.post('/stations/report', undefined, reportBody(s.id))).status).toBe(401);
        expect((await api.post('/stations/report', driver.token, reportBody(999999))).body.error).toBe(
          'StationNotFound',
        );
        await api.patch(`/admin/stations/${s.id}/status`, admin, { estado: 'INACTIVA' });
        const inactive = await api.post(`/stations/${s.id}/reports`, driver.token, {
          color: 'GREEN',
          driverLat: 10,
          driverLng: -64,
        });
        expect([inactive.status, inactive.body.error]).toEqual([404, 'StationNotFound']);
        const bad = await api.post('/stations/report', driver.token, {
          stationId: 'x',
          color: 'BLUE',
          waitMinutes: 241,
          comment: 'c'.repeat(281),
          driverLat: 95,
        });
        expect(bad.status).toBe(422);
        expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual([
          'color',
          'comment',
          'driverLat',
          'driverLng',
          'stationId',
          'waitMinutes',
        ]);
        const badPath = await api.post('/stations/abc/reports', driver.token, {
          color: 'GREEN',
          driverLat: 10,
          driverLng: -64,
        });
        expect(Object.keys(badPath.body.details.fieldErrors)).toEqual(['stationId']);
        const badWait = await api.post(`/stations/${s.id}/reports`, driver.token, {
          color: 'GREEN',
          waitMinutes: 1.5,
          driverLat: 10,
          driverLng: -64,
        });
        expect(Object.keys(badWait.body.details.fieldErrors)).toEqual(['waitMinutes']);
      },
    );

    it('detail: the 20 most recent reports; unknown or inactive station is 404 StationNotFound', async () => {
      const s = await create({ name: 'Muchos reportes', ...GUAYANA });
      const ids: number[] = [];
      for (let i = 0; i < 21; i++) {
        const r = await api.post(`/stations/${s.id}/reports`, driver.token, {
          color: i % 2 ? 'GREEN' : 'RED',
          waitMinutes: i,
          driverLat: 8.3,
          driverLng: -62.6,
        });
        expect(r.status).toBe(200);
        ids.push(r.body.report.id);
        clock.advance(15 * 60_000);
      }
      await freshAdmin();
      const detail = await api.get(`/stations/${s.id}`, client.token);
      expect(detail.body.reports.map((r: { id: number }) => r.id)).toEqual(ids.slice(1).reverse());
      // reports 15 to 105 minutes old; the one 120 minutes old is out of the window
      expect(detail.body.station.current_status).toMatchObject({ current_color: 'RED', report_count: 7 });
      expect((await api.get('/stations/999999', client.token)).body.error).toBe('StationNotFound');
      await api.patch(`/admin/stations/${s.id}/status`, admin, { estado: 'INACTIVA' });
      expect((await api.get(`/stations/${s.id}`, client.token)).status).toBe(404);
      expect((await api.get(`/admin/stations/${s.id}`, admin)).body.station.estado).toBe('INACTIVA');
      await api.patch(`/admin/stations/${s.id}/status`, admin, { estado: 'ACTIVA' });
      expect((await api.get(`/stations/${s.id}`, client.token)).status).toBe(200);
    });

    it('comments: drivers post, anyone reads newest first with a cursor, only the author deletes', async () => {
      const s = await create({ name: 'Muro de comentarios', latitude: 10.6, longitude: -66.9 });
      const posted = await api.post(`/stations/${s.id}/comments`, driver.token, {
        content: '  Hay agua desde las 6  ',
      });
      expect(posted.status).toBe(201);
      expect(posted.body).toEqual({
        comment: {
          id: expect.any(Number),
          station_id: s.id,
          author: { id: driver.user.id, name: 'Pedro Cisterna', role: 'DRIVER' },
          content: 'Hay agua desde las 6',
          created_at: clock.now().toISOString(),
        },
      });
      clock.advance(1000);
      const second = await api.post(`/stations/${s.id}/comments`, driver2.token, { content: 'Cola larga' });
      clock.advance(1000);
      const third = await api.post(`/stations/${s.id}/comments`, driver.token, { content: 'Ya no hay cola' });
      expect((await api.post(`/stations/${s.id}/comments`, client.token, { content: 'Soy cliente' })).status).toBe(403);

      const page1 = await api.get(`/stations/${s.id}/comments?limit=2`, client.token);
      expect(page1.status).toBe(200);
      expect(page1.body.items.map((c: { id: number }) => c.id)).toEqual([
        third.body.comment.id,
        second.body.comment.id,
      ]);
      expect(page1.body.has_more).toBe(true);
      const page2 = await api.get(`/stations/${s.id}/comments?limit=2&cursor=${page1.body.next_cursor}`, admin);
      expect(page2.body).toEqual({ items: [posted.body.comment], next_cursor: null, has_more: false });
      expect((await api.get(`/stations/${s.id}/comments`, driver.token)).body.items).toHaveLength(3);

      const notAuthor = await api.del(`/stations/${s.id}/comments/${posted.body.comment.id}`, driver2.token);
      expect([notAuthor.status, notAuthor.body.error]).toEqual([403, 'Forbidden']);
      expect((await api.del(`/stations/${s.id}/comments/${posted.body.comment.id}`, client.token)).status).toBe(403);
      const own = await api.del(`/stations/${s.id}/comments/${posted.body.comment.id}`, driver.token);
      expect([own.status, own.body]).toEqual([200, { ok: true }]);
      const again = await api.del(`/stations/${s.id}/comments/${posted.body.comment.id}`, driver.token);
      expect([again.status, again.body.error]).toEqual([404, 'NotFound']);
      expect((await api.del(`/stations/999999/comments/${third.body.comment.id}`, driver.token)).body.error).toBe(
        'StationNotFound',
      );
      expect(
        (await api.get(`/stations/${s.id}/comments`, client.token)).body.items.map((c: { id: number }) => c.id),
      ).toEqual([third.body.comment.id, second.body.comment.id]);

      expect((await api.get('/stations/999999/comments', client.token)).body.error).toBe('StationNotFound');
      expect((await api.post('/stations/999999/comments', driver.token, { content: 'x' })).body.error).toBe(
        'StationNotFound',
      );
      const bad = await api.post(`/stations/${s.id}/comments`, driver.token, { content: '   ' });
      expect(Object.keys(bad.body.details.fieldErrors)).toEqual(['content']);
      expect(
        Object.keys(
          (await api.post(`/stations/${s.id}/comments`, driver.token, { content: 'x'.repeat(501) })).body.details
            .fieldErrors,
        ),
      ).toEqual(['content']);
      expect(
        Object.keys(
          (await api.get(`/stations/${s.id}/comments?limit=101&cursor=zzz`, client.token)).body.details.fieldErrors,
        ).sort(),
      ).toEqual(['limit']);
      expect(
        Object.keys((await api.get(`/stations/${s.id}/comments?cursor=zzz`, client.token)).body.details.fieldErrors),
      ).toEqual(['cursor']);

      // Moderation: admins read the wall and remove a comment; another station's comment id is CommentNotFound.
      const wall = await api.get(`/admin/stations/${s.id}/comments`, admin);
      expect(wall.body.items[0]).toEqual({
        id: third.body.comment.id,
        author: { id: driver.user.id, name: 'Pedro Cisterna', role: 'DRIVER' },
        content: 'Ya no hay cola',
        created_at: third.body.comment.created_at,
      });
      const other = await create({ name: 'Otro muro', latitude: 10.61, longitude: -66.9 });
      const wrong = await api.del(`/admin/stations/${other.id}/comments/${third.body.comment.id}`, admin);
      expect([wrong.status, wrong.body.error]).toEqual([404, 'CommentNotFound']);
      expect((await api.del(`/admin/stations/${s.id}/comments/${third.body.comment.id}`, admin)).body).toEqual({
        ok: true,
      });
      expect(
        (await api.get(`/stations/${s.id}/comments`, client.token)).body.items.map((c: { id: number }) => c.id),
      ).toEqual([second.body.comment.id]);
      expect((await api.del(`/admin/stations/${s.id}/comments/${third.body.comment.id}`, admin)).body.error).toBe(
        'CommentNotFound',
      );
    });
  });

  describe('admin reports, status and delete', () => {
    it('reports history with color and date filters, detail summary over 30 days', async () => {
      clock.set('2026-04-01T12:00:00Z');
      await freshAdmin();
      const s = await create({ name: 'Historial', latitude: 10.45, longitude: -66.85 });
      const at = (iso: string) => clock.set(iso);
      at('2026-04-01T12:00:00Z');
      await api.post(`/stations/${s.id}/reports`, driver.token, {
        color: 'GREEN',
        waitMinutes: 5,
        driverLat: 10.45,
        driverLng: -66.85,
      });
      at('2026-04-02T08:00:00Z');
      await api.post(`/stations/${s.id}/reports`, driver.token, {
        color: 'CLOSED',
        driverLat: 10.45,
        driverLng: -66.85,
      });
      await api.post(`/stations/${s.id}/reports`, driver2.token, {
        color: 'GREEN',
        waitMinutes: 10,
        comment: 'rápido',
        driverLat: 10.45,
        driverLng: -66.85,
      });
      clock.set('2026-04-02T09:00:00Z');
      await freshAdmin();
      const earlier = await api.get(`/admin/stations/${s.id}`, admin);
      expect(earlier.body.summary).toEqual({
        total_reports_30d: 3,
        avg_wait_minutes: 7.5,
        color_breakdown: { verde: 2, amarillo: 0, rojo: 0, cerrada: 1 },
      });
      at('2026-05-05T08:00:00Z');
      await freshAdmin();
      const latest = await api.post(`/stations/${s.id}/reports`, driver.token, {
        color: 'RED',
        waitMinutes: 60,
        driverLat: 10.45,
        driverLng: -66.85,
      });

      const all = await api.get(`/admin/stations/${s.id}/reports?limit=3`, admin);
      expect(all.status).toBe(200);
      expect(all.body.items[0]).toEqual({
        id: latest.body.report.id,
        color: 'rojo',
        wait_minutes: 60,
        comment: null,
        reporter: 'Pedro Cisterna',
        created_at: '2026-05-05T08:00:00.000Z',
      });
      expect(all.body.items.map((r: { color: string }) => r.color)).toEqual(['rojo', 'verde', 'cerrada']);
      expect(all.body.items[1]).toMatchObject({ reporter: 'Luis Camión', comment: 'rápido' });
      const rest = await api.get(`/admin/stations/${s.id}/reports?limit=3&cursor=${all.body.next_cursor}`, admin);
      expect(rest.body).toMatchObject({
        items: [{ color: 'verde', created_at: '2026-04-01T12:00:00.000Z' }],
        has_more: false,
        next_cursor: null,
      });
      const colors = async (qs: string) =>
        (await api.get(`/admin/stations/${s.id}/reports?${qs}`, admin)).body.items.map(
          (r: { color: string }) => r.color,
        );
      expect(await colors('color=verde')).toEqual(['verde', 'verde']);
      expect(await colors('from=2026-04-02&to=2026-04-02')).toEqual(['verde', 'cerrada']);
      expect(await colors('to=2026-04-01')).toEqual(['verde']);
      expect(await colors('from=2026-04-02T08:00:00Z&color=cerrada')).toEqual(['cerrada']);
      const bad = await api.get(
        `/admin/stations/${s.id}/reports?color=azul&from=2026-04-03&to=2026-04-02&limit=0`,
        admin,
      );
      expect(bad.status).toBe(422);
      expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual(['color', 'limit']);
      expect(await colors('color=VERDE')).toEqual(['verde', 'verde']);
      const blank = await api.get(`/admin/stations/${s.id}/reports?color=&from=&to=&limit=`, admin);
      expect(Object.keys(blank.body.details.fieldErrors).sort()).toEqual(['color', 'from', 'limit', 'to']);
      const reversed = await api.get(`/admin/stations/${s.id}/reports?from=2026-04-03&to=2026-04-02`, admin);
      expect(Object.keys(reversed.body.details.fieldErrors)).toEqual(['to']);

      // Detail: only the last 30 days (from 2026-04-05 08:00) count.
      clock.set('2026-05-05T09:00:00Z');
      const detail = await api.get(`/admin/stations/${s.id}`, admin);
      expect(detail.body.reports).toEqual([all.body.items[0]]);
      expect(detail.body.summary).toEqual({
        total_reports_30d: 1,
        avg_wait_minutes: 60,
        color_breakdown: { verde: 0, amarillo: 0, rojo: 1, cerrada: 0 },
      });
      const listed = await api.get(`/admin/stations?q=Historial`, admin);
      expect(listed.body.items[0].last_report_at).toBe('2026-05-05T08:00:00.000Z');
    });

    it(
      'status moves between ACTIVA and INACTIVA; delete is ' + 'blocked by a report within 7 days, then soft-deletes',
      async () => {
        const s = await create({ name: 'Para borrar', latitude: 10.47, longitude: -66.8 });
        const off = await api.patch(`/admin/stations/${s.id}/status`, admin, { estado: 'INACTIVA' });
        expect(off.body).toEqual({ id: s.id, estado: 'INACTIVA', updated_at: clock.now().toISOString() });
        expect((await api.patch(`/admin/stations/${s.id}/status`, admin, { estado: 'ACTIVA' })).body.estado).toBe(
          'ACTIVA',
        );
        await api.post(`/stations/${s.id}/reports`, driver2.token, {
          color: 'GREEN',
          driverLat: 10.47,
          driverLng: -66.8,
        });
        clock.advance(7 * 86_400_000 - 60_000);
        await freshAdmin();
        const blocked = await api.del(`/admin/stations/${s.id}`, admin);
        expect([blocked.status, blocked.body.error]).toEqual([422, 'HasRecentReports']);
        clock.advance(60_000);
        const deleted = await api.del(`/admin/stations/${s.id}`, admin);
        expect([deleted.status, deleted.body]).toEqual([200, { deleted: true }]);
        expect((await api.get(`/admin/stations/${s.id}`, admin)).body.error).toBe('StationNotFound');
        expect((await api.del(`/admin/stations/${s.id}`, admin)).body.error).toBe('StationNotFound');
        expect((await api.get(`/stations/${s.id}`, client.token)).body.error).toBe('StationNotFound');
        expect((await api.get(`/admin/stations?q=Para%20borrar`, admin)).body.items).toEqual([]);
        // Its name and place are free again.
        expect(
          (
            await api.post(
              '/admin/stations',
              admin,
              station({ name: 'Para borrar', latitude: 10.47, longitude: -66.8 }),
            )
          ).status,
        ).toBe(201);
      },
    );
  });
});

describe('stations: request limits', () => {
  let t: ApiUnderTest;
  const request = appendingNothing(() => t);
  let api: ReturnType<typeof call>;
  const clock = new SystemTimeClock('2026-03-01T10:00:00Z');

  beforeAll(async () => {
    clock.install();
    t = await startApiUnderTest({ clock });
    api = call({ ...t, request });
  });
  afterAll(async () => {
    await t?.stop();
    clock.uninstall();
  });

  it('GET /stations/nearby and GET /stations share 20 requests per minute per caller', async () => {
    const [a, b] = await Promise.all([signInClient(t), signInClient(t)]);
    const q = 'lat=10.5&lng=-66.9';
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api.get(`${i % 2 ? '/stations' : '/stations/nearby'}?${q}`, a.token)),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    clock.advance(30_000);
    const refused = await request('GET', `/api/v1/stations?${q}`, { token: a.token });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'Cooldown', retryAfterSeconds: 30 });
    expect(refused.headers.get('retry-after')).toBe('30');
    // Another caller has a window of their own; a refused request does not extend the window.
    expect((await api.get(`/stations/nearby?${q}`, b.token)).status).toBe(200);
    clock.advance(30_000);
    expect((await api.get(`/stations/nearby?${q}`, a.token)).status).toBe(200);
  });

  it('POST /stations/{id}/comments: 10 per minute per driver', async () => {
    const admin = (await signInAdmin(t)).token;
    const s = (
      await api.post('/admin/stations', admin, {
        name: 'Límite',
        address: 'Calle 1',
        latitude: 10.5,
        longitude: -66.9,
        tipo: 'AGUA',
      })
    ).body.station;
    const d = await signInDriver(t, { approved: false });
    const posts = await Promise.all(
      Array.from({ length: 11 }, (_, i) =>
        api.post(`/stations/${s.id}/comments`, d.token, { content: `Comentario ${i}` }),
      ),
    );
    expect(posts.map((r) => r.status).sort()).toEqual([...Array(10).fill(201), 429]);
    expect(posts.find((r) => r.status === 429)!.body).toMatchObject({ error: 'Cooldown', retryAfterSeconds: 60 });
    clock.advance(60_000);
    expect((await api.post(`/stations/${s.id}/comments`, d.token, { content: 'Otra vez' })).status).toBe(201);
  });

  it('STATION_RATE_LIMIT=false turns the request limits off', async () => {
    const t2 = await startApiUnderTest({ clock, env: { STATION_RATE_LIMIT: 'false' } });
    try {
      const c = await signInClient(t2);
      const answers = await Promise.all(
        Array.from({ length: 21 }, () => t2.request('GET', '/api/v1/stations?lat=10.5&lng=-66.9', { token: c.token })),
      );
      expect(answers.every((r) => r.status === 200)).toBe(true);
    } finally {
      await t2.stop();
    }
  });
});
