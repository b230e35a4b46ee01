import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../infra/clock.js';
import { signInAdmin } from '../../../tests/support/actors.js';
import { appendingNothing, startApiUnderTest, type ApiUnderTest } from '../../../tests/support/apiSpecification.js';
import { TEST_SUPER_ADMIN, type TestService } from '../../../tests/support/testService.js';

const MINUTE = 60_000;

const mailTo = async (t: TestService, email: string, purpose: string): Promise<string | undefined> => {
  const r = await t.request('GET', `/api/v1/dev/outbox?to=${encodeURIComponent(email)}`);
  const m = (r.body.messages as { channel: string; data: { purpose?: string; token?: string } | null }[])
    .filter((x) => x.channel === 'mail' && x.data?.purpose === purpose)
    .at(-1);
  return m?.data?.token;
};

describe('admin sign-in: JWT, grace, expiry, recovery', () => {
  let t: ApiUnderTest;
  const request = appendingNothing(() => t);
  const clock = new ManualClock('2026-03-01T12:00:00Z');
  beforeAll(async () => {
    t = await startApiUnderTest({ clock });
  });
  afterAll(async () => {
    await t?.stop();
  });

  const login = (email = TEST_SUPER_ADMIN.email, password = TEST_SUPER_ADMIN.password) =>
    request('POST', '/api/v1/admin/auth/login', { body: { email, password } });
  const probe = (token: string) => request('GET', '/api/v1/admin/admins', { token });

  it('the bootstrap super admin logs in: 60-minute bearer token with the admin', async () => {
    const r = await login();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      access_token: expect.any(String),
      token_type: 'bearer',
      expires_in: 3600,
      expires_in_datetime: new Date(clock.now().getTime() + 60 * MINUTE).toISOString(),
      user: { email: TEST_SUPER_ADMIN.email, superAdmin: true, allCities: true, confirmed: true, isActive: true },
    });
    expect((await probe(r.body.access_token)).status).toBe(200);
    const upper = await login(TEST_SUPER_ADMIN.email.toUpperCase());
    expect(upper.status).toBe(200);
  });

  it('401 for a wrong password or an unknown email, without telling which', async () => {
    const wrong = await login(TEST_SUPER_ADMIN.email, 'wrong-password');
    const unknown = await login('nobody@test.local', 'whatever-password');
    expect([wrong.status, unknown.status]).toEqual([401, 401]);
    expect(wrong.body).toEqual(unknown.body);
  });

  it(
    'an expired token is answered with a fresh one in ' + 'the Authorization header, then has a 2-minute grace',
    async () => {
      const { access_token: token } = (await login()).body;
      clock.advance(60 * MINUTE + 1000);
      const renewed = await probe(token);
      expect(renewed.status).toBe(200);
      const header = renewed.headers.get('authorization');
      expect(header).toMatch(/^Bearer .+\..+\..+$/);
      const fresh = header!.slice('Bearer '.length);
      expect(fresh).not.toBe(token);
      expect((await probe(fresh)).status).toBe(200);
      expect((await probe(fresh)).headers.get('authorization')).toBeNull();

      clock.advance(119_000);
      expect((await probe(token)).status).toBe(200);
      clock.advance(2000);
      const late = await probe(token);
      expect(late.status).toBe(401);
      expect(late.body.error).toBe('Unauthorized');
      expect((await probe(fresh)).status).toBe(200);
    },
  );

  it('refresh-jwt: a new token in body and header; the old one works 2 minutes more, then never', async () => {
    const { access_token: old } = (await login()).body;
    const r = await request('POST', '/api/v1/admin/auth/refresh-jwt', { token: old });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ access_token: expect.any(String), token_type: 'bearer', expires_in: 3600 });
    expect(r.headers.get('authorization')).toBe(`Bearer ${r.body.access_token}`);
    clock.advance(90_000);
    expect((await probe(old)).status).toBe(200);
    clock.advance(31_000);
    expect((await probe(old)).status).toBe(401);
    expect((await request('POST', '/api/v1/admin/auth/refresh-jwt', { token: old })).status).toBe(401);
    expect((await probe(r.body.access_token)).status).toBe(200);
  });

  it('logout: 204; the token keeps a 2-minute grace, then is blacklisted', async () => {
    const { access_token: token } = (await login()).body;
    const out = await request('POST', '/api/v1/admin/auth/logout', { token });
    expect(out.status).toBe(204);
    expect((await probe(token)).status).toBe(200);
    clock.advance(2 * MINUTE + 1000);
    expect((await probe(token)).status).toBe(401);
    expect((await request('POST', '/api/v1/admin/auth/logout', { token })).status).toBe(401);
  });

  it('a token signed with another key, tampered or of another type is refused', async () => {
    const { access_token: token } = (await login()).body;
    const [h, p, s] = token.split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: '999' })).toString('base64url')}.${s}`;
    expect((await probe(forged)).status).toBe(401);
    // The first character always changes a byte (the last ones may differ only in base64url's padding bits).
    const tampered = `${s[0] === 'A' ? 'B' : 'A'}${s.slice(1)}`;
    expect((await probe(`${h}.${p}.${tampered}`)).status).toBe(401);
  });

  it('an invited admin confirms the account once, sets a password and signs in', async () => {
    const root = (await login()).body.access_token;
    const email = 'invitee@test.local';
    const created = await request('POST', '/api/v1/admin/admins', {
      token: root,
      body: { email, name: 'Invitada', cityIds: [1, 3] },
    });
    expect(created.status).toBe(201);
    expect(created.body.admin).toMatchObject({
      email,
      name: 'Invitada',
      superAdmin: false,
      allCities: false,
      cityIds: [1, 3],
      confirmed: false,
    });
    expect((await login(email, 'anything-123')).status).toBe(401);
    const token = await mailTo(t, email, 'confirm_account');
    expect(token).toBeTruthy();
    expect(
      (await request('POST', '/api/v1/admin/auth/confirm-account', { body: { token, password: 'new-password-1' } }))
        .status,
    ).toBe(204);
    const again = await request('POST', '/api/v1/admin/auth/confirm-account', {
      body: { token, password: 'other-password-2' },
    });
    expect(again.status).toBe(422);
    expect(again.body.details.fieldErrors.token).toBeDefined();
    const signed = await login(email, 'new-password-1');
    expect(signed.status).toBe(200);
    expect(signed.body.user).toMatchObject({ confirmed: true, cityIds: [1, 3] });
    const dup = await request('POST', '/api/v1/admin/admins', {
      token: root,
      body: { email: 'INVITEE@test.local', name: 'Otra' },
    });
    expect(dup.status).toBe(422);
    expect(dup.body.details.fieldErrors.email).toBeDefined();
  });

  it('password reset never reveals whether the email exists; recovery works once, within 24 hours', async () => {
    const a = await signInAdmin(t, { superAdmin: false, cityIds: [1] });
    expect((await request('GET', '/api/v1/admin/drivers', { token: a.token })).status).toBe(200);
    const unknown = await request('POST', '/api/v1/admin/auth/password-reset/ghost@test.local');
    const known = await request('POST', `/api/v1/admin/auth/password-reset/${encodeURIComponent(a.admin.email)}`);
    expect([unknown.status, known.status]).toEqual([204, 204]);
    expect(unknown.body).toEqual(known.body);
    expect(await mailTo(t, 'ghost@test.local', 'recover_password')).toBeUndefined();
    const token = await mailTo(t, a.admin.email, 'recover_password');
    expect(token).toBeTruthy();
    clock.advance(1000);

    const wrongEmail = await request('POST', '/api/v1/admin/auth/recover-password', {
      body: { email: 'ghost@test.local', token, password: 'recovered-pass-1' },
    });
    expect(wrongEmail.status).toBe(422);
    expect(
      (
        await request('POST', '/api/v1/admin/auth/recover-password', {
          body: { email: a.admin.email, token, password: 'recovered-pass-1' },
        })
      ).status,
    ).toBe(204);
    expect(
      (
        await request('POST', '/api/v1/admin/auth/recover-password', {
          body: { email: a.admin.email, token, password: 'recovered-pass-2' },
        })
      ).status,
    ).toBe(422);
    expect((await login(a.admin.email, 'admin-password-123')).status).toBe(401);
    expect((await login(a.admin.email, 'recovered-pass-1')).status).toBe(200);
    // Tokens issued before the password changed are refused.
    expect((await request('GET', '/api/v1/admin/drivers', { token: a.token })).status).toBe(401);

    await request('POST', `/api/v1/admin/auth/password-reset/${encodeURIComponent(a.admin.email)}`);
    const stale = await mailTo(t, a.admin.email, 'recover_password');
    clock.advance(24 * 60 * MINUTE + 1000);
    const expired = await request('POST', '/api/v1/admin/auth/recover-password', {
      body: { email: a.admin.email, token: stale, password: 'recovered-pass-3' },
    });
    expect(expired.status).toBe(422);
    expect(expired.body.details.fieldErrors.token).toBeDefined();
  });

  it('an email change takes effect once confirmed from the new address', async () => {
    const root = (await login()).body.access_token;
    const a = await signInAdmin(t, { superAdmin: false, cityIds: [2] });
    const patched = await request('PATCH', `/api/v1/admin/admins/${a.admin.id}`, {
      token: root,
      body: { email: 'moved@test.local', name: 'Movida' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.admin).toMatchObject({
      email: a.admin.email,
      pendingEmail: 'moved@test.local',
      name: 'Movida',
    });
    const token = await mailTo(t, 'moved@test.local', 'confirm_email');
    expect(
      (await request('POST', '/api/v1/admin/auth/confirm-email', { body: { email: a.admin.email, token } })).status,
    ).toBe(422);
    expect(
      (await request('POST', '/api/v1/admin/auth/confirm-email', { body: { email: 'moved@test.local', token } }))
        .status,
    ).toBe(204);
    expect((await login('moved@test.local', 'admin-password-123')).status).toBe(200);
    expect(
      (await request('POST', '/api/v1/admin/auth/confirm-email', { body: { email: 'moved@test.local', token } }))
        .status,
    ).toBe(422);
  });

  it('admins: list, change cities and rights, deactivate; a super admin cannot demote themselves', async () => {
    const root = await login();
    const a = await signInAdmin(t, { superAdmin: false, cityIds: [1] });
    const list = await request('GET', '/api/v1/admin/admins?limit=2&page=1', { token: root.body.access_token });
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(2);
    expect(list.body.meta).toMatchObject({ per_page: 2, current_page: 1 });
    expect(list.body.meta.total).toBeGreaterThanOrEqual(2);

    const p = await request('PATCH', `/api/v1/admin/admins/${a.admin.id}`, {
      token: root.body.access_token,
      body: { cityIds: [4, 5], superAdmin: true },
    });
    expect(p.body.admin).toMatchObject({ cityIds: [4, 5], superAdmin: true });
    const unchanged = await request('PATCH', `/api/v1/admin/admins/${a.admin.id}`, {
      token: root.body.access_token,
      body: {},
    });
    expect(unchanged.status).toBe(200);
    expect(unchanged.body.admin).toEqual(p.body.admin);
    expect((await probe(a.token)).status).toBe(200);
    await request('PATCH', `/api/v1/admin/admins/${a.admin.id}`, {
      token: root.body.access_token,
      body: { isActive: false },
    });
    expect((await probe(a.token)).status).toBe(401);
    expect((await login(a.admin.email, 'admin-password-123')).status).toBe(401);

    const self = await request('PATCH', `/api/v1/admin/admins/${root.body.user.id}`, {
      token: root.body.access_token,
      body: { superAdmin: false },
    });
    // Its own code, so the console says why rather than "someone else changed it".
    expect([self.status, self.body.error]).toEqual([409, 'OwnAccount']);
    // Nobody widens their own rights: a super admin limited to a city cannot give itself more.
    const limited = await signInAdmin(t, { superAdmin: true, cityIds: [1], allCities: false });
    const selfPatch = (body: Record<string, unknown>) =>
      request('PATCH', `/api/v1/admin/admins/${limited.admin.id}`, { token: limited.token, body });
    for (const body of [{ allCities: true }, { cityIds: [1, 3] }, { cityIds: [3] }]) {
      const widened = await selfPatch(body);
      expect([widened.status, widened.body.error], JSON.stringify(body)).toEqual([403, 'Forbidden']);
    }
    expect((await selfPatch({ cityIds: [1], name: 'Sigue igual' })).body.admin).toMatchObject({
      allCities: false,
      cityIds: [1],
    });
    expect(
      (
        await request('PATCH', `/api/v1/admin/admins/${limited.admin.id}`, {
          token: root.body.access_token,
          body: { allCities: true },
        })
      ).status,
    ).toBe(200);

    const missing = await request('PATCH', '/api/v1/admin/admins/99999', {
      token: root.body.access_token,
      body: { name: 'Nadie' },
    });
    expect([missing.status, missing.body.error]).toEqual([404, 'NotFound']);
    const badCity = await request('PATCH', `/api/v1/admin/admins/${a.admin.id}`, {
      token: root.body.access_token,
      body: { cityIds: [9999] },
    });
    expect(badCity.status).toBe(422);
    expect(badCity.body.details.fieldErrors.cityIds).toBeDefined();
  });

  it('422 ValidationError naming each bad field of the admin routes', async () => {
    const root = (await login()).body.access_token;
    const cases: [string, string, unknown, string, boolean?][] = [
      ['POST', '/api/v1/admin/auth/login', { password: 'x' }, 'email'],
      ['POST', '/api/v1/admin/auth/login', { email: 'nope', password: 'x' }, 'email'],
      ['POST', '/api/v1/admin/auth/login', { email: 'a@b.co' }, 'password'],
      ['POST', '/api/v1/admin/auth/login', { email: 'a@b.co', password: 12345678 }, 'password'],
      ['POST', '/api/v1/admin/auth/confirm-account', { password: 'long-enough' }, 'token'],
      ['POST', '/api/v1/admin/auth/confirm-account', { token: 'x' }, 'password'],
      ['POST', '/api/v1/admin/auth/confirm-account', { token: 'x', password: 'short' }, 'password'],
      ['POST', '/api/v1/admin/auth/recover-password', { token: 'x', password: 'long-enough' }, 'email'],
      ['POST', '/api/v1/admin/auth/recover-password', { email: 'a@b.co', password: 'long-enough' }, 'token'],
      ['POST', '/api/v1/admin/auth/recover-password', { email: 'a@b.co', token: 'x' }, 'password'],
      ['POST', '/api/v1/admin/auth/confirm-email', { token: 'x' }, 'email'],
      ['POST', '/api/v1/admin/auth/confirm-email', { email: 'a@b.co' }, 'token'],
      ['POST', '/api/v1/admin/auth/password-reset/not-an-email', undefined, 'email'],
      ['POST', '/api/v1/admin/admins', { name: 'Ana' }, 'email', true],
      ['POST', '/api/v1/admin/admins', { email: 'x@y.co' }, 'name', true],
      ['POST', '/api/v1/admin/admins', { email: 'x@y.co', name: 'Ana', superAdmin: 'yes' }, 'superAdmin', true],
      ['POST', '/api/v1/admin/admins', { email: 'x@y.co', name: 'Ana', cityIds: ['a'] }, 'cityIds.0', true],
      ['POST', '/api/v1/admin/admins', { email: 'x@y.co', name: 'Ana', allCities: 1 }, 'allCities', true],
      ['PATCH', '/api/v1/admin/admins/1', { isActive: 'no' }, 'isActive', true],
      ['PATCH', '/api/v1/admin/admins/1', { name: '' }, 'name', true],
      ['PATCH', '/api/v1/admin/admins/1', { email: 'bad' }, 'email', true],
      ['PATCH', '/api/v1/admin/admins/abc', { name: 'Ana' }, 'id', true],
      ['GET', '/api/v1/admin/admins?limit=500', undefined, 'limit', true],
      ['GET', '/api/v1/admin/admins?page=0', undefined, 'page', true],
    ];
    for (const [method, path, body, field, auth] of cases) {
      const r = await request(method, path, { body, token: auth ? root : undefined });
      expect(r.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(422);
      expect(Object.keys(r.body.details.fieldErrors), `${path} ${JSON.stringify(body)}`).toContain(field);
    }
  });
});
