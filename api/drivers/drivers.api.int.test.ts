import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin, signInDriver } from '../../tests/support/actors.js';
import { startApiUnderTest } from '../../tests/support/apiSpecification.js';
import type { TestService } from '../../tests/support/testService.js';

describe('drivers: onboarding, KYC decisions, availability', () => {
  let t: TestService;
  let root: string;
  const clock = new ManualClock('2026-03-01T12:00:00Z');
  beforeAll(async () => {
    t = await startApiUnderTest({ clock });
    root = (await signInAdmin(t)).token;
  });
  afterAll(async () => {
    await t?.stop();
  });

  const admin = (method: string, path: string, body?: unknown, token = root) =>
    t.request(method, `/api/v1/admin/drivers${path}`, { token, body });

  it('profile + required documents put the application in review; an admin approves it', async () => {
    const d = await signInDriver(t, { approved: false });
    const profile = await t.request('PUT', '/api/v1/driver/profile', {
      token: d.token,
      body: { plate: 'ab-123cd', capacityLiters: 8000, cityId: 1 },
    });
    expect(profile.status).toBe(200);
    expect(profile.body.driver).toMatchObject({
      id: d.driverId,
      plate: 'AB-123CD',
      capacityLiters: 8000,
      cityId: 1,
      status: 'PENDING_VERIFICATION',
      kycState: 'PENDING_KYC',
    });

    const early = await admin('POST', `/${d.driverId}/approve`);
    expect([early.status, early.body.error]).toEqual([409, 'WrongStatus']);

    const doc = await t.request('POST', '/api/v1/driver/documents', {
      token: d.token,
      body: { type: 'ID_FRONT', expiresAt: '2030-01-31', fileUrl: 'https://files.example.com/id.jpg' },
    });
    expect(doc.status).toBe(201);
    expect(doc.body.document).toMatchObject({
      type: 'ID_FRONT',
      expiresAt: '2030-01-31',
      fileUrl: 'https://files.example.com/id.jpg',
      label: expect.any(String),
    });
    const lic = await t.request('POST', '/api/v1/driver/documents', {
      token: d.token,
      body: { type: 'LICENSE', expiresAt: null },
    });
    expect(lic.status).toBe(201);

    const me = await t.request('GET', '/api/v1/me', { token: d.token });
    expect(me.body.user.driver).toMatchObject({ status: 'PENDING_VERIFICATION', kycState: 'PENDING_REVIEW' });
    const review = await admin('GET', '?kyc_state=PENDING_REVIEW');
    expect(review.body.items.map((x: { id: number }) => x.id)).toContain(d.driverId);

    const ok = await admin('POST', `/${d.driverId}/approve`);
    expect(ok.status).toBe(200);
    expect(ok.body.driver).toMatchObject({
      id: d.driverId,
      status: 'ACTIVE',
      kycState: 'APPROVED',
      kycApprovedAt: clock.now().toISOString(),
    });
    const again = await admin('POST', `/${d.driverId}/approve`);
    expect([again.status, again.body.error]).toEqual([409, 'WrongStatus']);

    const detail = await admin('GET', `/${d.driverId}`);
    expect(detail.body.documents.map((x: { type: string }) => x.type)).toEqual(['ID_FRONT', 'LICENSE']);
  });

  it('a newer document replaces the older one of its type; an expired one is refused', async () => {
    const d = await signInDriver(t, { approved: false });
    await t.request('POST', '/api/v1/driver/documents', {
      token: d.token,
      body: { type: 'RCV', expiresAt: '2027-01-01' },
    });
    await t.request('POST', '/api/v1/driver/documents', {
      token: d.token,
      body: { type: 'RCV', expiresAt: '2028-06-30' },
    });
    const docs = await t.request('GET', '/api/v1/driver/documents', { token: d.token });
    expect(docs.body.documents).toEqual([expect.objectContaining({ type: 'RCV', expiresAt: '2028-06-30' })]);
    const old = await t.request('POST', '/api/v1/driver/documents', {
      token: d.token,
      body: { type: 'LICENSE', expiresAt: '2026-02-28' },
    });
    expect(old.status).toBe(422);
    expect(old.body.details.fieldErrors.expiresAt).toBeDefined();
  });

  it('isCertified follows a current SANITARY_CERT', async () => {
    const d = await signInDriver(t);
    expect(d.user.driver).toMatchObject({ isCertified: false });
    await t.request('POST', '/api/v1/driver/documents', {
      token: d.token,
      body: { type: 'SANITARY_CERT', expiresAt: '2026-03-02' },
    });
    expect((await t.request('GET', '/api/v1/me', { token: d.token })).body.user.driver.isCertified).toBe(true);
    clock.advance(2 * 86_400_000);
    expect((await t.request('GET', '/api/v1/me', { token: d.token })).body.user.driver.isCertified).toBe(false);
  });

  it('reject with a reason; resubmitting a document returns the application to review', async () => {
    const d = await signInDriver(t, { approved: false });
    const noReason = await admin('POST', `/${d.driverId}/reject`, {});
    expect(noReason.status).toBe(422);
    expect(noReason.body.details.fieldErrors.reason).toBeDefined();
    const r = await admin('POST', `/${d.driverId}/reject`, { reason: 'Documentos ilegibles' });
    expect(r.status).toBe(200);
    expect(r.body.driver).toMatchObject({
      status: 'REJECTED',
      kycState: 'REJECTED',
      blockReason: 'Documentos ilegibles',
    });
    expect((await admin('POST', `/${d.driverId}/reject`, { reason: 'Otra vez' })).body.error).toBe('WrongStatus');
    const online = await t.request('POST', '/api/v1/driver/online', { token: d.token, body: { online: true } });
    expect([online.status, online.body.error]).toEqual([409, 'NotAllowed']);

    await t.request('PUT', '/api/v1/driver/profile', {
      token: d.token,
      body: { plate: 'XYZ123', capacityLiters: 5000, cityId: 1 },
    });
    await t.request('POST', '/api/v1/driver/documents', {
      token: d.token,
      body: { type: 'ID_FRONT', expiresAt: null },
    });
    await t.request('POST', '/api/v1/driver/documents', { token: d.token, body: { type: 'LICENSE', expiresAt: null } });
    const me = await t.request('GET', '/api/v1/me', { token: d.token });
    expect(me.body.user.driver).toMatchObject({
      status: 'PENDING_VERIFICATION',
      kycState: 'PENDING_REVIEW',
      blockReason: null,
    });
    expect((await admin('POST', `/${d.driverId}/approve`)).body.driver.status).toBe('ACTIVE');
  });

  it('suspend takes an online driver offline; reinstate makes it ACTIVE again', async () => {
    const d = await signInDriver(t, { online: true, lat: 10.49, lng: -66.88 });
    expect(d.user.driver).toMatchObject({ isOnline: true, location: { latitude: 10.49, longitude: -66.88 } });
    expect((await admin('POST', `/${d.driverId}/reinstate`)).body.error).toBe('WrongStatus');
    const s = await admin('POST', `/${d.driverId}/suspend`, { reason: 'Queja de cliente' });
    expect(s.body.driver).toMatchObject({ status: 'SUSPENDED', isOnline: false, blockReason: 'Queja de cliente' });
    expect((await admin('POST', `/${d.driverId}/suspend`, { reason: 'Otra vez' })).body.error).toBe('WrongStatus');
    const online = await t.request('POST', '/api/v1/driver/online', { token: d.token, body: { online: true } });
    expect([online.status, online.body.error]).toEqual([409, 'NotAllowed']);
    const r = await admin('POST', `/${d.driverId}/reinstate`);
    expect(r.body.driver).toMatchObject({ status: 'ACTIVE', isOnline: false, blockReason: null });
    expect(
      (await t.request('POST', '/api/v1/driver/online', { token: d.token, body: { online: true } })).body.driver
        .isOnline,
    ).toBe(true);
  });

  it('tank liters up to the capacity; online and offline; idle location', async () => {
    const d = await signInDriver(t, { capacityLiters: 6000 });
    const tank = await t.request('PATCH', '/api/v1/driver/tank', { token: d.token, body: { availableLiters: 4500 } });
    expect(tank.status).toBe(200);
    expect(tank.body.driver).toMatchObject({ availableLiters: 4500, remainingLiters: 4500, capacityLiters: 6000 });
    const over = await t.request('PATCH', '/api/v1/driver/tank', { token: d.token, body: { availableLiters: 6001 } });
    expect(over.status).toBe(422);
    expect(over.body.details.fieldErrors.availableLiters).toBeDefined();
    const shrink = await t.request('PUT', '/api/v1/driver/profile', {
      token: d.token,
      body: { plate: 'AB12345', capacityLiters: 4000, cityId: 1 },
    });
    expect(shrink.status).toBe(422);
    expect(shrink.body.details.fieldErrors.capacityLiters).toBeDefined();

    const on = await t.request('POST', '/api/v1/driver/online', {
      token: d.token,
      body: { online: true, latitude: 10.5, longitude: -66.9 },
    });
    expect(on.body.driver).toMatchObject({ isOnline: true, location: { latitude: 10.5, longitude: -66.9 } });
    expect((await t.request('POST', '/api/v1/driver/online', { token: d.token, body: { online: true } })).status).toBe(
      200,
    );
    clock.advance(60_000); // 1.5 km in a minute: a plausible drive (DRIVER_MAX_SPEED_KMH)
    const loc = await t.request('POST', '/api/v1/driver/location', {
      token: d.token,
      body: { latitude: 10.51, longitude: -66.91 },
    });
    expect(loc.status).toBe(204);
    expect((await t.request('GET', '/api/v1/me', { token: d.token })).body.user.driver.location).toMatchObject({
      latitude: 10.51,
      longitude: -66.91,
    });
    const off = await t.request('POST', '/api/v1/driver/online', { token: d.token, body: { online: false } });
    expect(off.body.driver.isOnline).toBe(false);

    const pending = await signInDriver(t, { approved: false });
    const noProfile = await t.request('PATCH', '/api/v1/driver/tank', {
      token: pending.token,
      body: { availableLiters: 10 },
    });
    expect([noProfile.status, noProfile.body.error]).toEqual([409, 'WrongStatus']);
    const notActive = await t.request('POST', '/api/v1/driver/online', {
      token: pending.token,
      body: { online: true },
    });
    expect([notActive.status, notActive.body.error]).toEqual([409, 'NotAllowed']);
  });

  it('admins see the drivers of their cities only; 404 DriverNotFound elsewhere', async () => {
    const caracas = await signInDriver(t, { cityId: 1 });
    const valencia = await signInDriver(t, { cityId: 3 });
    const unfinished = await signInDriver(t, { approved: false });
    const local = await signInAdmin(t, { superAdmin: false, cityIds: [3] });
    const list = await admin('GET', '?limit=100', undefined, local.token);
    const ids = list.body.items.map((x: { id: number }) => x.id);
    expect(ids).toContain(valencia.driverId);
    expect(ids).not.toContain(caracas.driverId);
    expect(ids).not.toContain(unfinished.driverId);
    expect(list.body.items.every((x: { cityId: number }) => x.cityId === 3)).toBe(true);
    for (const [m, p, b] of [
      ['GET', `/${caracas.driverId}`, undefined],
      ['POST', `/${caracas.driverId}/suspend`, { reason: 'No es mío' }],
      ['POST', `/${unfinished.driverId}/reject`, { reason: 'No es mío' }],
      ['POST', '/999999/approve', undefined],
    ] as const) {
      const r = await admin(m, p, b, local.token);
      expect([r.status, r.body.error], p).toEqual([404, 'DriverNotFound']);
    }
    expect((await admin('POST', `/${valencia.driverId}/suspend`, { reason: 'Revisión' }, local.token)).status).toBe(
      200,
    );

    const all = await admin('GET', '?limit=100&status=ACTIVE');
    expect(all.body.items.every((x: { status: string }) => x.status === 'ACTIVE')).toBe(true);
    expect(all.body.meta).toMatchObject({ per_page: 100, current_page: 1, total: all.body.items.length });
    const page = await admin('GET', '?limit=1&page=2');
    expect(page.body.items).toHaveLength(1);
    expect(page.body.meta.last_page).toBe(page.body.meta.total);
  });

  it('422 ValidationError naming each bad field of the driver routes', async () => {
    const d = await signInDriver(t);
    const cases: [string, string, unknown, string, string?][] = [
      ['PUT', '/driver/profile', { capacityLiters: 5000, cityId: 1 }, 'plate'],
      ['PUT', '/driver/profile', { plate: 'A!', capacityLiters: 5000, cityId: 1 }, 'plate'],
      ['PUT', '/driver/profile', { plate: 'ABC123', cityId: 1 }, 'capacityLiters'],
      ['PUT', '/driver/profile', { plate: 'ABC123', capacityLiters: 50, cityId: 1 }, 'capacityLiters'],
      ['PUT', '/driver/profile', { plate: 'ABC123', capacityLiters: 1000.5, cityId: 1 }, 'capacityLiters'],
      ['PUT', '/driver/profile', { plate: 'ABC123', capacityLiters: 5000 }, 'cityId'],
      ['PUT', '/driver/profile', { plate: 'ABC123', capacityLiters: 5000, cityId: 999 }, 'cityId'],
      // Beyond what a city's id column holds (2^31 − 1): the same refusal, not the database's.
      ['PUT', '/driver/profile', { plate: 'ABC123', capacityLiters: 5000, cityId: 2 ** 31 }, 'cityId'],
      ['POST', '/driver/documents', { expiresAt: null }, 'type'],
      ['POST', '/driver/documents', { type: 'PASSPORT', expiresAt: null }, 'type'],
      ['POST', '/driver/documents', { type: 'RCV' }, 'expiresAt'],
      ['POST', '/driver/documents', { type: 'RCV', expiresAt: '31/12/2030' }, 'expiresAt'],
      ['POST', '/driver/documents', { type: 'RCV', expiresAt: '2030-02-30' }, 'expiresAt'],
      ['POST', '/driver/documents', { type: 'RCV', expiresAt: null, fileUrl: 'not a url' }, 'fileUrl'],
      ['PATCH', '/driver/tank', {}, 'availableLiters'],
      ['PATCH', '/driver/tank', { availableLiters: -1 }, 'availableLiters'],
      ['PATCH', '/driver/tank', { availableLiters: '100' }, 'availableLiters'],
      ['POST', '/driver/online', {}, 'online'],
      ['POST', '/driver/online', { online: 'yes' }, 'online'],
      ['POST', '/driver/online', { online: true, latitude: 91, longitude: 0 }, 'latitude'],
      ['POST', '/driver/online', { online: true, latitude: 10 }, 'longitude'],
      ['POST', '/driver/location', { longitude: 0 }, 'latitude'],
      ['POST', '/driver/location', { latitude: 0, longitude: 181 }, 'longitude'],
      ['POST', '/driver/location', { latitude: '10', longitude: 0 }, 'latitude'],
      ['POST', `/admin/drivers/${d.driverId}/suspend`, { reason: '' }, 'reason', root],
      ['POST', `/admin/drivers/${d.driverId}/suspend`, { reason: 'x'.repeat(501) }, 'reason', root],
      ['POST', '/admin/drivers/abc/approve', undefined, 'driverId', root],
      ['GET', '/admin/drivers?status=SLEEPING', undefined, 'status', root],
      ['GET', '/admin/drivers?kyc_state=MAYBE', undefined, 'kyc_state', root],
      ['GET', '/admin/drivers?limit=0', undefined, 'limit', root],
      ['GET', `/admin/drivers?city_id=${2 ** 31}`, undefined, 'city_id', root],
    ];
    for (const [method, path, body, field, token] of cases) {
      const r = await t.request(method, `/api/v1${path}`, { body, token: token ?? d.token });
      expect(r.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(422);
      expect(Object.keys(r.body.details.fieldErrors), `${method} ${path} ${JSON.stringify(body)}`).toContain(field);
    }
  });

  it('driver status changes and KYC decisions are recorded as events of the driver stream', async () => {
    const d = await signInDriver(t);
    await admin('POST', `/${d.driverId}/suspend`, { reason: 'Prueba' });
    const events = await t.service.ctx.store.readStream(`driver-${d.driverId}`);
    expect(events.map((e) => e.type)).toEqual([
      'DriverRegistered',
      'DriverRenamed',
      'DriverProfileUpdated',
      'DriverDocumentRecorded',
      'DriverDocumentRecorded',
      'DriverKycSubmitted',
      'DriverApproved',
      'DriverSuspended',
    ]);
    expect(events.at(-1)!.metadata.actor).toMatchObject({ role: 'ADMIN' });
  });
});
