import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driverStream } from '../../domain/driver/events.js';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin, signInDriver } from '../../tests/support/actors.js';
import {
  expectNewEvents,
  expectNoNewEvents,
  expectNothingAppended,
  expectResponse,
  refused,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../tests/support/apiSpecification.js';

describe('drivers: onboarding, KYC decisions, availability', () => {
  let t: ApiUnderTest;
  let root: string;
  let rootId: number;
  const clock = new ManualClock('2026-03-01T12:00:00Z');
  const now = () => clock.now().toISOString();
  beforeAll(async () => {
    t = await startApiUnderTest({ clock });
    const signedIn = await signInAdmin(t);
    root = signedIn.token;
    rootId = signedIn.admin.id;
  });
  afterAll(async () => {
    await t?.stop();
  });

  const admin = (method: string, path: string, body?: unknown, token = root) =>
    t.request(method, `/api/v1/admin/drivers${path}`, { token, body });

  it('profile + required documents put the application in review; an admin approves it', async () => {
    const d = await signInDriver(t, { approved: false });
    const driverId = d.driverId;
    const profile = await t
      .given()
      .when((api) => api.put('/driver/profile', d.token, { plate: 'ab-123cd', capacityLiters: 8000, cityId: 1 }))
      .then(
        expectResponse(200),
        // The plate in capitals; no KYC submission yet: the required documents are missing.
        expectNewEvents(driverStream(driverId), [
          {
            type: 'DriverProfileUpdated',
            data: { driverId, plate: 'AB-123CD', capacityLiters: 8000, cityId: 1, at: now() },
          },
        ]),
      );
    expect(profile.body.driver).toMatchObject({
      id: d.driverId,
      plate: 'AB-123CD',
      capacityLiters: 8000,
      cityId: 1,
      status: 'PENDING_VERIFICATION',
      kycState: 'PENDING_KYC',
    });

    await refused(t, (api) => api.post(`/admin/drivers/${driverId}/approve`, root), 409, 'WrongStatus');

    const doc = await t
      .given()
      .when((api) =>
        api.post('/driver/documents', d.token, {
          type: 'ID_FRONT',
          expiresAt: '2030-01-31',
          fileUrl: 'https://files.example.com/id.jpg',
        }),
      )
      .then(
        expectResponse(201),
        expectNewEvents(driverStream(driverId), [
          {
            type: 'DriverDocumentRecorded',
            data: {
              driverId,
              type: 'ID_FRONT',
              expiresAt: '2030-01-31',
              fileUrl: 'https://files.example.com/id.jpg',
              recordedAt: now(),
            },
          },
        ]),
      );
    expect(doc.body.document).toMatchObject({
      type: 'ID_FRONT',
      expiresAt: '2030-01-31',
      fileUrl: 'https://files.example.com/id.jpg',
      label: expect.any(String),
    });
    // The last required document completes the application: it goes to review.
    await t
      .given()
      .when((api) => api.post('/driver/documents', d.token, { type: 'LICENSE', expiresAt: null }))
      .then(
        expectResponse(201),
        expectNewEvents(driverStream(driverId), [
          { type: 'DriverDocumentRecorded', data: { type: 'LICENSE', expiresAt: null, fileUrl: null } },
          { type: 'DriverKycSubmitted', data: { driverId, at: now() } },
        ]),
      );

    const me = await t.request('GET', '/api/v1/me', { token: d.token });
    expect(me.body.user.driver).toMatchObject({ status: 'PENDING_VERIFICATION', kycState: 'PENDING_REVIEW' });
    const review = await admin('GET', '?kyc_state=PENDING_REVIEW');
    expect(review.body.items.map((x: { id: number }) => x.id)).toContain(d.driverId);

    const ok = await t
      .given()
      .when((api) => api.post(`/admin/drivers/${driverId}/approve`, root))
      .then(
        expectResponse(200),
        expectNewEvents(driverStream(driverId), [
          { type: 'DriverApproved', data: { driverId, adminId: rootId, at: now() } },
        ]),
      );
    expect(ok.body.driver).toMatchObject({
      id: d.driverId,
      status: 'ACTIVE',
      kycState: 'APPROVED',
      kycApprovedAt: clock.now().toISOString(),
    });
    await refused(t, (api) => api.post(`/admin/drivers/${driverId}/approve`, root), 409, 'WrongStatus');

    const detail = await admin('GET', `/${d.driverId}`);
    expect(detail.body.documents.map((x: { type: string }) => x.type)).toEqual(['ID_FRONT', 'LICENSE']);
  });

  it('a newer document replaces the older one of its type; an expired one is refused', async () => {
    const d = await signInDriver(t, { approved: false });
    for (const expiresAt of ['2027-01-01', '2028-06-30']) {
      await t
        .given()
        .when((api) => api.post('/driver/documents', d.token, { type: 'RCV', expiresAt }))
        .then(
          expectResponse(201),
          expectNewEvents(driverStream(d.driverId), [
            { type: 'DriverDocumentRecorded', data: { type: 'RCV', expiresAt } },
          ]),
        );
    }
    const docs = await t.request('GET', '/api/v1/driver/documents', { token: d.token });
    expect(docs.body.documents).toEqual([expect.objectContaining({ type: 'RCV', expiresAt: '2028-06-30' })]);
    const old = await refused(
      t,
      (api) => api.post('/driver/documents', d.token, { type: 'LICENSE', expiresAt: '2026-02-28' }),
      422,
      'ValidationError',
    );
    expect(old.body.details.fieldErrors.expiresAt).toBeDefined();
  });

  it('isCertified follows a current SANITARY_CERT', async () => {
    const d = await signInDriver(t);
    expect(d.user.driver).toMatchObject({ isCertified: false });
    await t
      .given()
      .when((api) => api.post('/driver/documents', d.token, { type: 'SANITARY_CERT', expiresAt: '2026-03-02' }))
      .then(
        expectResponse(201),
        expectNewEvents(driverStream(d.driverId), [
          { type: 'DriverDocumentRecorded', data: { type: 'SANITARY_CERT', expiresAt: '2026-03-02' } },
        ]),
      );
    expect((await t.request('GET', '/api/v1/me', { token: d.token })).body.user.driver.isCertified).toBe(true);
    clock.advance(2 * 86_400_000);
    expect((await t.request('GET', '/api/v1/me', { token: d.token })).body.user.driver.isCertified).toBe(false);
  });

  it('reject with a reason; resubmitting a document returns the application to review', async () => {
    const d = await signInDriver(t, { approved: false });
    const driverId = d.driverId;
    const noReason = await refused(
      t,
      (api) => api.post(`/admin/drivers/${driverId}/reject`, root, {}),
      422,
      'ValidationError',
    );
    expect(noReason.body.details.fieldErrors.reason).toBeDefined();
    const r = await t
      .given()
      .when((api) => api.post(`/admin/drivers/${driverId}/reject`, root, { reason: 'Documentos ilegibles' }))
      .then(
        expectResponse(200),
        expectNewEvents(driverStream(driverId), [
          { type: 'DriverRejected', data: { driverId, adminId: rootId, reason: 'Documentos ilegibles', at: now() } },
        ]),
      );
    expect(r.body.driver).toMatchObject({
      status: 'REJECTED',
      kycState: 'REJECTED',
      blockReason: 'Documentos ilegibles',
    });
    await refused(
      t,
      (api) => api.post(`/admin/drivers/${driverId}/reject`, root, { reason: 'Otra vez' }),
      409,
      'WrongStatus',
    );
    await refused(t, (api) => api.post('/driver/online', d.token, { online: true }), 409, 'NotAllowed');

    await t.request('PUT', '/api/v1/driver/profile', {
      token: d.token,
      body: { plate: 'XYZ123', capacityLiters: 5000, cityId: 1 },
    });
    await t.request('POST', '/api/v1/driver/documents', {
      token: d.token,
      body: { type: 'ID_FRONT', expiresAt: null },
    });
    await t
      .given()
      .when((api) => api.post('/driver/documents', d.token, { type: 'LICENSE', expiresAt: null }))
      .then(
        expectResponse(201),
        expectNewEvents(driverStream(driverId), [
          { type: 'DriverDocumentRecorded', data: { type: 'LICENSE' } },
          { type: 'DriverKycSubmitted', data: { driverId } },
        ]),
      );
    const me = await t.request('GET', '/api/v1/me', { token: d.token });
    expect(me.body.user.driver).toMatchObject({
      status: 'PENDING_VERIFICATION',
      kycState: 'PENDING_REVIEW',
      blockReason: null,
    });
    await t
      .given()
      .when((api) => api.post(`/admin/drivers/${driverId}/approve`, root))
      .then(
        expectResponse(200, { body: { driver: { status: 'ACTIVE' } } }),
        expectNewEvents(driverStream(driverId), [{ type: 'DriverApproved', data: { driverId, adminId: rootId } }]),
      );
  });

  it('suspend takes an online driver offline; reinstate makes it ACTIVE again', async () => {
    const d = await signInDriver(t, { online: true, lat: 10.49, lng: -66.88 });
    expect(d.user.driver).toMatchObject({ isOnline: true, location: { latitude: 10.49, longitude: -66.88 } });
    const driverId = d.driverId;
    await refused(t, (api) => api.post(`/admin/drivers/${driverId}/reinstate`, root), 409, 'WrongStatus');
    // Suspension alone takes the driver offline: no separate DriverWentOffline.
    const s = await t
      .given()
      .when((api) => api.post(`/admin/drivers/${driverId}/suspend`, root, { reason: 'Queja de cliente' }))
      .then(
        expectResponse(200),
        expectNewEvents(driverStream(driverId), [
          { type: 'DriverSuspended', data: { driverId, adminId: rootId, reason: 'Queja de cliente', at: now() } },
        ]),
      );
    expect(s.body.driver).toMatchObject({ status: 'SUSPENDED', isOnline: false, blockReason: 'Queja de cliente' });
    await refused(
      t,
      (api) => api.post(`/admin/drivers/${driverId}/suspend`, root, { reason: 'Otra vez' }),
      409,
      'WrongStatus',
    );
    await refused(t, (api) => api.post('/driver/online', d.token, { online: true }), 409, 'NotAllowed');
    const r = await t
      .given()
      .when((api) => api.post(`/admin/drivers/${driverId}/reinstate`, root))
      .then(
        expectResponse(200),
        expectNewEvents(driverStream(driverId), [
          { type: 'DriverReinstated', data: { driverId, adminId: rootId, at: now() } },
        ]),
      );
    expect(r.body.driver).toMatchObject({ status: 'ACTIVE', isOnline: false, blockReason: null });
    await t
      .given()
      .when((api) => api.post('/driver/online', d.token, { online: true }))
      .then(
        expectResponse(200, { body: { driver: { isOnline: true } } }),
        expectNewEvents(driverStream(driverId), [{ type: 'DriverWentOnline', data: { driverId, at: now() } }]),
      );
  });

  it('tank liters up to the capacity; online and offline; idle location', async () => {
    const d = await signInDriver(t, { capacityLiters: 6000 });
    const driverId = d.driverId;
    const tank = await t
      .given()
      .when((api) => api.patch('/driver/tank', d.token, { availableLiters: 4500 }))
      .then(
        expectResponse(200),
        expectNewEvents(driverStream(driverId), [
          { type: 'DriverTankUpdated', data: { driverId, availableLiters: 4500, at: now() } },
        ]),
      );
    expect(tank.body.driver).toMatchObject({ availableLiters: 4500, remainingLiters: 4500, capacityLiters: 6000 });
    const over = await refused(
      t,
      (api) => api.patch('/driver/tank', d.token, { availableLiters: 6001 }),
      422,
      'ValidationError',
    );
    expect(over.body.details.fieldErrors.availableLiters).toBeDefined();
    const shrink = await refused(
      t,
      (api) => api.put('/driver/profile', d.token, { plate: 'AB12345', capacityLiters: 4000, cityId: 1 }),
      422,
      'ValidationError',
    );
    expect(shrink.body.details.fieldErrors.capacityLiters).toBeDefined();

    const on = await t
      .given()
      .when((api) => api.post('/driver/online', d.token, { online: true, latitude: 10.5, longitude: -66.9 }))
      .then(
        expectResponse(200),
        expectNewEvents(driverStream(driverId), [{ type: 'DriverWentOnline', data: { driverId, at: now() } }]),
      );
    expect(on.body.driver).toMatchObject({ isOnline: true, location: { latitude: 10.5, longitude: -66.9 } });
    // Already online: answered, nothing recorded twice.
    await t
      .given()
      .when((api) => api.post('/driver/online', d.token, { online: true }))
      .then(expectResponse(200), expectNoNewEvents(driverStream(driverId)));
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
    await t
      .given()
      .when((api) => api.post('/driver/online', d.token, { online: false }))
      .then(
        expectResponse(200, { body: { driver: { isOnline: false } } }),
        expectNewEvents(driverStream(driverId), [{ type: 'DriverWentOffline', data: { driverId, at: now() } }]),
      );

    const pending = await signInDriver(t, { approved: false });
    await refused(t, (api) => api.patch('/driver/tank', pending.token, { availableLiters: 10 }), 409, 'WrongStatus');
    await refused(t, (api) => api.post('/driver/online', pending.token, { online: true }), 409, 'NotAllowed');
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
      const r = await refused(
        t,
        (api) => (m === 'GET' ? api.get : api.post)(`/admin/drivers${p}`, local.token, b),
        404,
      );
      expect([r.status, r.body.error], p).toEqual([404, 'DriverNotFound']);
    }
    await t
      .given()
      .when((api) => api.post(`/admin/drivers/${valencia.driverId}/suspend`, local.token, { reason: 'Revisión' }))
      .then(
        expectResponse(200),
        expectNewEvents(driverStream(valencia.driverId), [
          { type: 'DriverSuspended', data: { adminId: local.admin.id, reason: 'Revisión' } },
        ]),
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
      const r = await t
        .given()
        .when(() => t.request(method, `/api/v1${path}`, { body, token: token ?? d.token }))
        .then(expectNothingAppended);
      expect(r.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(422);
      expect(Object.keys(r.body.details.fieldErrors), `${method} ${path} ${JSON.stringify(body)}`).toContain(field);
    }
  });

  it('driver status changes and KYC decisions are recorded as events of the driver stream', async () => {
    const d = await signInDriver(t);
    await t
      .given()
      .when((api) => api.post(`/admin/drivers/${d.driverId}/suspend`, root, { reason: 'Prueba' }))
      .then(expectResponse(200), expectNewEvents(driverStream(d.driverId), [{ type: 'DriverSuspended' }]));
    const events = await t.service.ctx.store.readStream(driverStream(d.driverId));
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
