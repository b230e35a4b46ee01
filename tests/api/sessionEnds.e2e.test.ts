import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin, signInClient } from '../support/actors.js';
import { startTestService, TEST_SUPER_ADMIN, type TestService } from '../support/testService.js';
import { openSocket, type Socket } from '../support/wsClient.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

const closed = (s: Socket) => once(s.ws, 'close').then(([code]) => code as number);

/** Sessions end when they should (issue #20 finding 6), without touching the spec's 2-minute grace. */
describe('session ends', () => {
  let t: TestService;
  const clock = new ManualClock('2026-03-01T12:00:00Z');
  beforeAll(async () => {
    t = await startTestService({ clock });
  });
  afterAll(() => t?.stop());

  const login = async () =>
    (await t.request('POST', '/api/v1/admin/auth/login', { body: TEST_SUPER_ADMIN })).body.access_token as string;
  const probe = (token: string) => t.request('GET', '/api/v1/admin/admins', { token });
  const refresh = (token: string) => t.request('POST', '/api/v1/admin/auth/refresh-jwt', { token });

  it('a logged-out admin token keeps its grace for requests but never mints a new token', async () => {
    const token = await login();
    expect((await t.request('POST', '/api/v1/admin/auth/logout', { token })).status).toBe(204);
    expect((await probe(token)).status).toBe(200);
    const r = await refresh(token);
    expect([r.status, r.body.error, r.headers.get('authorization')]).toEqual([401, 'Unauthorized', null]);

    // Expired during its grace: no renewal in the Authorization header either.
    const late = await login();
    clock.advance(59 * MINUTE);
    await t.request('POST', '/api/v1/admin/auth/logout', { token: late });
    clock.advance(90_000);
    const renewal = await probe(late);
    expect([renewal.status, renewal.headers.get('authorization')]).toEqual([401, null]);
  });

  it('a token replaced by a refresh may be refreshed again within its grace: two tabs at once', async () => {
    const token = await login();
    const [a, b] = await Promise.all([refresh(token), refresh(token)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect((await refresh(token)).status).toBe(200);
    // Logged out after being replaced: no more refreshes.
    await t.request('POST', '/api/v1/admin/auth/logout', { token });
    expect((await refresh(token)).status).toBe(401);
  });

  it('an app token unused for APP_TOKEN_IDLE_DAYS (90) is refused; each use keeps it alive', async () => {
    const used = await signInClient(t);
    const idle = await signInClient(t);
    clock.advance(60 * DAY);
    expect((await t.request('GET', '/api/v1/me', { token: used.token })).status).toBe(200);
    clock.advance(31 * DAY);
    expect((await t.request('GET', '/api/v1/me', { token: used.token })).status).toBe(200);
    const r = await t.request('GET', '/api/v1/me', { token: idle.token });
    expect([r.status, r.body.error]).toEqual([401, 'Unauthorized']);
  });

  it(
    'closes a websocket when its token is logged out or ' + "refreshed away, and leaves the user's other sockets open",
    async () => {
      const client = await signInClient(t);
      const other = (await t.request('POST', '/api/v1/auth/otp/request', { body: { phone: client.user.phone } })).body
        .code;
      const second = (
        await t.request('POST', '/api/v1/auth/otp/verify', { body: { phone: client.user.phone, code: other } })
      ).body.token;
      const [a, b] = await Promise.all([openSocket(t, { token: client.token }), openSocket(t, { token: second })]);
      try {
        const aClosed = closed(a);
        expect((await t.request('POST', '/api/v1/auth/logout', { token: client.token })).status).toBe(200);
        expect(await aClosed).toBe(4401);
        expect(a.frames).toContainEqual({ type: 'error', channel: null, error: 'Unauthorized' });
        expect(await b.subscribe(`notifications.${client.user.id}`)).toEqual({
          type: 'subscribed',
          channel: `notifications.${client.user.id}`,
        });

        const bClosed = closed(b);
        expect((await t.request('POST', '/api/v1/auth/refresh', { token: second })).status).toBe(200);
        expect(await bClosed).toBe(4401);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    },
  );

  it("closes a deactivated admin's websocket, and checks the token again on every subscribe", async () => {
    const root = await signInAdmin(t);
    const admin = await signInAdmin(t, { superAdmin: false });
    const socket = await openSocket(t, { token: admin.token });
    const ended = closed(socket);
    const patched = await t.request('PATCH', `/api/v1/admin/admins/${admin.admin.id}`, {
      token: root.token,
      body: { isActive: false },
    });
    expect(patched.status).toBe(200);
    expect(await ended).toBe(4401);

    const client = await signInClient(t);
    const idle = await openSocket(t, { token: client.token });
    clock.advance(91 * DAY);
    const idleClosed = closed(idle);
    expect(await idle.subscribe(`notifications.${client.user.id}`)).toEqual({
      type: 'error',
      channel: `notifications.${client.user.id}`,
      error: 'Unauthorized',
    });
    expect(await idleClosed).toBe(4401);
  });
});
