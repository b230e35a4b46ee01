import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAdmin, signInClient, signInDriver } from '../../tests/support/actors.js';
import { refused, startApiUnderTest, type ApiUnderTest } from '../../tests/support/apiSpecification.js';
import { TEST_SUPER_ADMIN } from '../../tests/support/testService.js';

type Role = 'anonymous' | 'client' | 'driver' | 'admin' | 'super';
const ROLES: Role[] = ['anonymous', 'client', 'driver', 'admin', 'super'];

/**
 * Every route of this area × every role: a role that may not call a route gets 401 (no token) or 403,
 * and a role that may is never answered 401 or 403. A refusal appends nothing.
 */
describe('identity and drivers: authorization matrix', () => {
  let t: ApiUnderTest;
  const tokens = {} as Record<Role, () => Promise<string | undefined>>;
  let driverId: number;
  let adminId: number;
  let n = 0;

  beforeAll(async () => {
    t = await startApiUnderTest();
    const client = await signInClient(t);
    const driver = await signInDriver(t, { cityId: 1 });
    const admin = await signInAdmin(t, { superAdmin: false, cityIds: [1] });
    driverId = driver.driverId;
    adminId = admin.admin.id;
    const devToken = async (userId: number, app: string) =>
      (await t.request('POST', '/api/v1/auth/dev-token', { body: { userId, app } })).body.token as string;
    const login = async (email: string, password: string) =>
      (await t.request('POST', '/api/v1/admin/auth/login', { body: { email, password } })).body.access_token as string;
    // A fresh token per call, because logout and refresh spend the one they are given.
    tokens.anonymous = async () => undefined;
    tokens.client = () => devToken(client.user.id, 'client');
    tokens.driver = () => devToken(driver.user.id, 'driver');
    tokens.admin = () => login(admin.admin.email, 'admin-password-123');
    tokens.super = () => login(TEST_SUPER_ADMIN.email, TEST_SUPER_ADMIN.password);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const APP: Role[] = ['client', 'driver'];
  const ADMINS: Role[] = ['admin', 'super'];
  const routes: { method: string; path: string; body?: () => unknown; allowed: Role[] }[] = [
    { method: 'GET', path: '/me', allowed: APP },
    { method: 'PATCH', path: '/me', body: () => ({ name: 'Nombre' }), allowed: APP },
    { method: 'POST', path: '/auth/refresh', allowed: APP },
    { method: 'POST', path: '/auth/logout', allowed: APP },
    { method: 'GET', path: '/cities', allowed: [...APP, ...ADMINS] },
    {
      method: 'PUT',
      path: '/driver/profile',
      body: () => ({ plate: 'MAT001', capacityLiters: 10_000, cityId: 1 }),
      allowed: ['driver'],
    },
    { method: 'POST', path: '/driver/documents', body: () => ({ type: 'RCV', expiresAt: null }), allowed: ['driver'] },
    { method: 'GET', path: '/driver/documents', allowed: ['driver'] },
    { method: 'PATCH', path: '/driver/tank', body: () => ({ availableLiters: 100 }), allowed: ['driver'] },
    { method: 'POST', path: '/driver/online', body: () => ({ online: false }), allowed: ['driver'] },
    {
      method: 'POST',
      path: '/driver/location',
      body: () => ({ latitude: 10.5, longitude: -66.9 }),
      allowed: ['driver'],
    },
    { method: 'GET', path: '/admin/drivers', allowed: ADMINS },
    { method: 'GET', path: '/admin/drivers/{driverId}', allowed: ADMINS },
    { method: 'POST', path: '/admin/drivers/{driverId}/approve', allowed: ADMINS },
    { method: 'POST', path: '/admin/drivers/{driverId}/reject', body: () => ({ reason: 'Motivo' }), allowed: ADMINS },
    { method: 'POST', path: '/admin/drivers/{driverId}/suspend', body: () => ({ reason: 'Motivo' }), allowed: ADMINS },
    { method: 'POST', path: '/admin/drivers/{driverId}/reinstate', allowed: ADMINS },
    { method: 'POST', path: '/admin/auth/logout', allowed: ADMINS },
    { method: 'POST', path: '/admin/auth/refresh-jwt', allowed: ADMINS },
    { method: 'GET', path: '/admin/admins', allowed: ['super'] },
    {
      method: 'POST',
      path: '/admin/admins',
      body: () => ({ email: `matrix${++n}@test.local`, name: 'Matriz' }),
      allowed: ['super'],
    },
    { method: 'PATCH', path: '/admin/admins/{adminId}', body: () => ({ name: 'Renombrada' }), allowed: ['super'] },
  ];

  for (const route of routes) {
    it(`${route.method} ${route.path}`, async () => {
      const path = route.path.replace('{driverId}', String(driverId)).replace('{adminId}', String(adminId));
      for (const role of ROLES) {
        const token = await tokens[role]();
        const send = () => t.request(route.method, `/api/v1${path}`, { token, body: route.body?.() });
        const allowed = route.allowed.includes(role);
        const r = allowed
          ? await send()
          : await refused(
              t,
              send,
              role === 'anonymous' ? 401 : 403,
              role === 'anonymous' ? 'Unauthorized' : 'Forbidden',
            );
        const label = `${role} → ${route.method} ${path}: ${r.status} ${JSON.stringify(r.body)}`;
        if (allowed) {
          expect([401, 403], label).not.toContain(r.status);
          expect(r.status, label).toBeLessThan(500);
        } else {
          expect(r.status, label).toBe(role === 'anonymous' ? 401 : 403);
          expect(r.body.error, label).toBe(role === 'anonymous' ? 'Unauthorized' : 'Forbidden');
        }
      }
    });
  }

  it(
    'another admin’s city: the driver is out of reach (404 ' + 'DriverNotFound), not merely hidden from the list',
    async () => {
      const other = await signInAdmin(t, { superAdmin: false, cityIds: [2] });
      for (const [m, p] of [
        ['GET', `/admin/drivers/${driverId}`],
        ['POST', `/admin/drivers/${driverId}/reinstate`],
      ]) {
        const r = await refused(t, () => t.request(m, `/api/v1${p}`, { token: other.token }), 404, 'DriverNotFound');
        expect([r.status, r.body.error]).toEqual([404, 'DriverNotFound']);
      }
    },
  );
});
