import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAdmin } from '../../../tests/support/actors.js';
import { startApiUnderTest } from '../../../tests/support/apiSpecification.js';
import { capturedLogger, TEST_SUPER_ADMIN, type TestService } from '../../../tests/support/testService.js';

/** Admin sign-in limits (issue #20 finding 7): per client IP and per account, 429 with Retry-After. */
describe('admin sign-in limits', () => {
  let t: TestService;
  const log = capturedLogger('warn');
  let ipCounter = 0;
  let invited: string;
  // Each test signs in from addresses of its own (through the trusted loopback proxy), so budgets never mix.
  const newIp = () => `203.0.113.${++ipCounter}`;
  beforeAll(async () => {
    t = await startApiUnderTest({ env: { TRUST_PROXY: 'loopback' }, logger: log.logger });
    invited = (await signInAdmin(t, { superAdmin: false })).admin.email;
  });
  afterAll(() => t?.stop());

  const login = (ip: string, email: string, password: string) =>
    t.request('POST', '/api/v1/admin/auth/login', { body: { email, password }, headers: { 'x-forwarded-for': ip } });
  const reset = (ip: string, email: string) =>
    t.request('POST', `/api/v1/admin/auth/password-reset/${encodeURIComponent(email)}`, {
      headers: { 'x-forwarded-for': ip },
    });

  it(
    '5 failed logins for one account in 10 minutes, then ' + '429 even with the right password, from anywhere',
    async () => {
      const statuses = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await login(newIp(), TEST_SUPER_ADMIN.email, `wrong-password-${i}`)).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401]);
      const refused = await login(newIp(), TEST_SUPER_ADMIN.email.toUpperCase(), TEST_SUPER_ADMIN.password);
      expect([refused.status, refused.body.error]).toEqual([429, 'Cooldown']);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    },
  );

  it('20 failed logins from one address, then 429; successful logins use up nothing', async () => {
    const ip = newIp();
    for (let i = 0; i < 20; i++)
      expect((await login(ip, `nobody${i}@test.local`, 'whatever-password')).status).toBe(401);
    expect((await login(ip, 'nobody-else@test.local', 'whatever-password')).status).toBe(429);

    const regular = newIp();
    for (let i = 0; i < 25; i++) expect((await login(regular, invited, 'admin-password-123')).status).toBe(200);
  });

  it('logs each failed login with the email tried, never the password', async () => {
    const password = 'a-password-nobody-may-read';
    await login(newIp(), 'guessed@test.local', password);
    const lines = log.lines();
    expect(lines).toMatch(/"email":"guessed@test.local".*"msg":"admin login failed"/);
    expect(lines).not.toContain(password);
  });

  it('password-reset requests: 5 per account and 20 per address in 10 minutes, then 429', async () => {
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await reset(newIp(), 'someone@test.local')).status);
    expect(statuses).toEqual([204, 204, 204, 204, 204, 429]);
    const ip = newIp();
    for (let i = 0; i < 20; i++) expect((await reset(ip, `person${i}@test.local`)).status).toBe(204);
    const refused = await reset(ip, 'one-more@test.local');
    expect([refused.status, refused.body.error]).toEqual([429, 'Cooldown']);
  });
});
