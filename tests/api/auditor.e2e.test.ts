import type { Router } from 'express';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin, signInClient, signInDriver, type SignedInAdmin, type SignedInDriver } from '../support/actors.js';
import { expectNothingAppended, startApiUnderTest, type ApiUnderTest } from '../support/apiSpecification.js';

/**
 * The auditor (DOMAIN "Auditors", docs/decisions/0085): reads what an audit needs in every city, changes
 * nothing, and what it exports or replays is recorded for super admins to list.
 */

/** The auditor's read list as the domain rules name it, written out here so that the route table is checked against it. */
const AUDITOR_READS = new Set([
  // Its own session, as an admin's.
  'POST /admin/auth/logout',
  'POST /admin/auth/refresh-jwt',
  // Settlement receipts, their histories and replays.
  'GET /admin/settlements/receipts',
  'GET /admin/settlements/tray',
  'GET /admin/settlements/receipts/{id}',
  'GET /admin/settlements/receipts/{id}/history',
  // Wallet replays and ledgers; the customers' credit ledger.
  'GET /admin/drivers/{driverId}/wallet',
  'GET /admin/drivers/{driverId}/wallet/transactions',
  'GET /admin/drivers/{driverId}/wallet/history',
  'GET /admin/customers/{customerId}/credit/transactions',
  // The audit chain's status, exports and anchors.
  'GET /admin/audit/streams/{stream}/chain',
  'GET /admin/audit/streams/{stream}/export',
  'GET /admin/audit/anchors',
  'GET /admin/audit/anchors/{anchorId}',
  // Payments' review queue and the payments reviewed, order histories.
  'GET /admin/payments/pending',
  'GET /admin/payments/reviewed',
  'GET /admin/orders/{orderId}/history',
  // The city names the reports' filter shows.
  'GET /cities',
]);
/** Every report and every report export. */
const isReport = (route: string) => /^GET \/admin\/reports\/[^{}]+$/.test(route);
const onAuditorList = (route: string) => AUDITOR_READS.has(route) || isReport(route);

/** Served beside the API, not operations of it: health, the documents, the console's files. */
const BESIDE_THE_API = new Set(['GET /health', 'GET /ready', 'GET /openapi.json', 'GET /asyncapi.json']);

interface Operation {
  security?: Record<string, string[]>[];
  'x-roles'?: string[];
}

/** Every route the Express app serves, as `METHOD /path` with OpenAPI's {param}; a pattern route as its source. */
const expressRoutes = (router: Router): string[] =>
  (router.stack as unknown as { route?: { path: unknown; methods: object }; handle: Partial<Router> }[]).flatMap(
    (layer) => {
      if (layer.route) {
        const path = layer.route.path;
        const shown = typeof path === 'string' ? path.replace(/:([A-Za-z_]+)/g, '{$1}') : String(path);
        return Object.keys(layer.route.methods).map((m) => `${m.toUpperCase()} ${shown}`);
      }
      return layer.handle.stack ? expressRoutes(layer.handle as Router) : [];
    },
  );

/** A path with its parameters filled: any value will do, guards run before the path is read. */
const concrete = (path: string) =>
  path
    .replace('{stream}', 'wallet-1')
    .replace('{email}', 'nobody@test.local')
    .replace(/\{[A-Za-z_]+\}/g, '1');

describe('auditor', () => {
  let t: ApiUnderTest;
  let root: SignedInAdmin;
  let auditor: SignedInAdmin;
  beforeAll(async () => {
    t = await startApiUnderTest({ clock: new ManualClock(), env: { OFFICIAL_RATE_VES: '36.5' } });
    root = await signInAdmin(t);
    auditor = await signInAdmin(t, { auditor: true });
  });
  afterAll(async () => {
    await t?.stop();
  });
  const get = (path: string, token: string) => t.request('GET', `/api/v1${path}`, { token });

  describe('account', () => {
    it('is invited by a super admin as admins are, reads every city, and its token says it is an auditor', async () => {
      expect(auditor.admin).toMatchObject({ auditor: true, superAdmin: false, allCities: true });
      expect(decodeJwt(auditor.token)).toMatchObject({ auditor: true });
      expect(decodeJwt(root.token).auditor).toBeUndefined();
    });

    it('is never a super admin, and never limited to some cities', async () => {
      const invite = (body: object) =>
        t.request('POST', '/api/v1/admin/admins', {
          token: root.token,
          body: { email: `a${Math.random()}@test.local`, name: 'Auditora', ...body },
        });
      const both = await invite({ auditor: true, superAdmin: true });
      expect(both.status).toBe(422);
      expect(both.body.details.fieldErrors).toHaveProperty('auditor');
      const limited = await invite({ auditor: true, allCities: false, cityIds: [1] });
      expect(limited.status).toBe(422);
      expect(limited.body.details.fieldErrors).toHaveProperty('allCities');
      const patched = await t.request('PATCH', `/api/v1/admin/admins/${auditor.admin.id}`, {
        token: root.token,
        body: { superAdmin: true },
      });
      expect(patched.status).toBe(422);
    });

    it('made an auditor, an admin is refused what it read a moment ago, with the token it holds', async () => {
      const admin = await signInAdmin(t, { superAdmin: false, cityIds: [1] });
      expect((await get('/admin/customers', admin.token)).status).toBe(200);
      const patched = await t.request('PATCH', `/api/v1/admin/admins/${admin.admin.id}`, {
        token: root.token,
        body: { auditor: true },
      });
      expect(patched.status).toBe(200);
      expect(patched.body.admin).toMatchObject({ auditor: true, allCities: true });
      const refused = await get('/admin/customers', admin.token);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toBe('Forbidden');
    });
  });

  describe('the route table', () => {
    it('refuses the auditor every route that takes a token and is not on its read list; the list does not', async () => {
      const doc = (await t.request('GET', '/api/v1/openapi.json')).body as {
        paths: Record<string, Record<string, Operation>>;
      };
      const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, path, method, op })),
      );
      // The document holds every route the app serves, so walking it walks them all.
      const served = expressRoutes(t.service.app.router as unknown as Router).filter(
        (r) => !BESIDE_THE_API.has(r) && !r.startsWith('GET /.*/'),
      );
      expect(served.filter((r) => !operations.some((o) => o.route === r))).toEqual([]);
      expect(served.length).toBeGreaterThan(150);

      // What the route table declares agrees with the list: x-roles names the auditor exactly there.
      const declared = operations.filter((o) => o.op['x-roles']?.includes('AUDITOR')).map((o) => o.route);
      expect(declared.filter((r) => !onAuditorList(r))).toEqual([]);

      // Sign-in, recovery and the providers' webhooks take no token (a signature or a query token at most): no caller to refuse.
      const takesToken = (op: Operation) => op.security?.some((s) => 'adminJwt' in s || 'appToken' in s) === true;
      const publicRoutes = operations.filter((o) => !takesToken(o.op)).map((o) => o.route);
      const listed = operations.filter((o) => onAuditorList(o.route));
      expect(listed.map((o) => o.route)).toEqual(expect.arrayContaining([...AUDITOR_READS]));
      const refusedRoutes = operations.filter((o) => !onAuditorList(o.route) && !publicRoutes.includes(o.route));
      expect(refusedRoutes.length).toBeGreaterThan(100);

      const wrong: string[] = [];
      for (const o of refusedRoutes) {
        // Nothing a refused request could write is written.
        const r = await t
          .given()
          .when(() => t.request(o.method.toUpperCase(), `/api/v1${concrete(o.path)}`, { token: auditor.token }))
          .then(expectNothingAppended);
        if (r.status !== 403 || r.body?.error !== 'Forbidden') wrong.push(`${o.route} answered ${r.status}`);
      }
      // The session's own routes replace, then end, the token: they come last, in that order.
      const last = ['POST /admin/auth/refresh-jwt', 'POST /admin/auth/logout'];
      const inOrder = [
        ...listed.filter((l) => !last.includes(l.route)),
        ...last.map((route) => listed.find((l) => l.route === route)!),
      ];
      let token = auditor.token;
      for (const o of inOrder) {
        const r = await t.request(o.method.toUpperCase(), `/api/v1${concrete(o.path)}`, { token });
        if (r.status === 401 || r.status === 403 || r.status >= 500) wrong.push(`${o.route} answered ${r.status}`);
        if (o.route === 'POST /admin/auth/refresh-jwt' && r.status === 200) token = r.body.access_token;
      }
      expect(wrong).toEqual([]);
      // Signed out at the end of the walk: the next auditor test signs in again.
      auditor = await signInAdminAgain(auditor);
    });
  });

  /** A new session for an admin whose token was signed out (its password is the one signInAdmin sets). */
  const signInAdminAgain = async (a: SignedInAdmin): Promise<SignedInAdmin> => {
    const login = await t.request('POST', '/api/v1/admin/auth/login', {
      body: { email: a.admin.email, password: 'admin-password-123' },
    });
    expect(login.status).toBe(200);
    return { token: login.body.access_token, admin: login.body.user };
  };

  describe('access log', () => {
    let driver: SignedInDriver;
    let creditStream: string;
    beforeAll(async () => {
      // A driver out of Caracas (the auditor reads every city) and a client whose credit is a money stream.
      driver = await signInDriver(t, { cityId: 5 });
      const client = await signInClient(t);
      const adjusted = await t.request('POST', `/api/v1/admin/customers/${client.user.id}/credit/adjust`, {
        token: root.token,
        body: { type: 'credit', scope: 'ANY', amount: 3, reason: 'Compensación por demora' },
      });
      expect(adjusted.status).toBe(200);
      creditStream = `credit-${client.user.id}`;
    });

    it("records each export and replay an auditor makes, newest first, and nobody else's", async () => {
      const asOf = '2026-01-01T00:00:00.000Z';
      expect((await get(`/admin/audit/streams/${creditStream}/export`, auditor.token)).status).toBe(200);
      expect((await get('/admin/reports/orders/export?format=csv', auditor.token)).status).toBe(200);
      expect((await get(`/admin/drivers/${driver.driverId}/wallet?as_of=${asOf}`, auditor.token)).status).toBe(200);
      // Read but not recorded: the wallet as it is now, a report's page.
      expect((await get(`/admin/drivers/${driver.driverId}/wallet`, auditor.token)).status).toBe(200);
      expect((await get('/admin/reports/orders', auditor.token)).status).toBe(200);
      expect((await get(`/admin/drivers/${driver.driverId}/wallet/history`, auditor.token)).status).toBe(200);
      // Asked for, though nothing was there: recorded all the same.
      expect((await get(`/admin/settlements/receipts/999999?as_of=${asOf}`, auditor.token)).status).toBe(404);
      expect((await get('/admin/settlements/receipts/999999/history', auditor.token)).status).toBe(404);
      expect((await get('/admin/orders/999999/history', auditor.token)).status).toBe(404);
      // A super admin's reads are not an auditor's.
      expect((await get(`/admin/audit/streams/${creditStream}/export`, root.token)).status).toBe(200);

      const log = await get('/admin/audit/access?limit=7', root.token);
      expect(log.status).toBe(200);
      const who = { id: auditor.admin.id, name: auditor.admin.name };
      expect(log.body.items).toMatchObject([
        { admin: who, action: 'order_history', target: '/admin/orders/999999/history' },
        { admin: who, action: 'receipt_history', target: '/admin/settlements/receipts/999999/history' },
        { admin: who, action: 'receipt_replay', target: `/admin/settlements/receipts/999999?as_of=${asOf}` },
        { admin: who, action: 'wallet_history', target: `/admin/drivers/${driver.driverId}/wallet/history` },
        { admin: who, action: 'wallet_replay', target: `/admin/drivers/${driver.driverId}/wallet?as_of=${asOf}` },
        { admin: who, action: 'report_export', target: '/admin/reports/orders/export?format=csv' },
        { admin: who, action: 'stream_export', target: `/admin/audit/streams/${creditStream}/export` },
      ]);
      expect(log.body.meta).toMatchObject({ per_page: 7, current_page: 1 });
      for (const e of log.body.items) expect(Date.parse(e.created_at)).not.toBeNaN();
      const ids = (log.body.items as { id: number }[]).map((e) => e.id);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      const second = await get(`/admin/audit/access?limit=1&page=2`, root.token);
      expect(second.body.items).toMatchObject([{ id: ids[1] }]);
    });

    it('is for super admins: an auditor and a plain admin are refused it', async () => {
      const admin = await signInAdmin(t, { superAdmin: false, cityIds: [1] });
      for (const token of [auditor.token, admin.token]) {
        const r = await get('/admin/audit/access', token);
        expect(r.status).toBe(403);
        expect(r.body.error).toBe('Forbidden');
      }
    });
  });
});
