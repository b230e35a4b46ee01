import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAdmin } from '../../../tests/support/actors.js';
import {
  expectNothingAppended,
  expectResponse,
  refused,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../../tests/support/apiSpecification.js';
import { capturedLogger, TEST_SUPER_ADMIN, type TestResponse } from '../../../tests/support/testService.js';

/**
 * Admin sign-in limits (issue #20 finding 7): per client IP and per account, 429 with Retry-After. Admin accounts,
 * sessions and budgets are state: a sign-in or a reset appends nothing, and neither does a refusal.
 */
describe('admin sign-in limits', () => {
  let t: ApiUnderTest;
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

  /** The request, its answer's status, and nothing appended. */
  const answered = (send: () => Promise<TestResponse>, status: number) =>
    status < 400 ? t.given().when(send).then(expectResponse(status), expectNothingAppended) : refused(t, send, status);
  const login = (ip: string, email: string, password: string, status: number) =>
    answered(
      () =>
        t.request('POST', '/api/v1/admin/auth/login', {
          body: { email, password },
          headers: { 'x-forwarded-for': ip },
        }),
      status,
    );
  const reset = (ip: string, email: string, status: number) =>
    answered(
      () =>
        t.request('POST', `/api/v1/admin/auth/password-reset/${encodeURIComponent(email)}`, {
          headers: { 'x-forwarded-for': ip },
        }),
      status,
    );

  it(
    '5 failed logins for one account in 10 minutes, then ' + '429 even with the right password, from anywhere',
    async () => {
      const statuses = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await login(newIp(), TEST_SUPER_ADMIN.email, `wrong-password-${i}`, 401)).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401]);
      const cooldown = await login(newIp(), TEST_SUPER_ADMIN.email.toUpperCase(), TEST_SUPER_ADMIN.password, 429);
      expect([cooldown.status, cooldown.body.error]).toEqual([429, 'Cooldown']);
      expect(Number(cooldown.headers.get('retry-after'))).toBeGreaterThan(0);
    },
  );

  it('20 failed logins from one address, then 429; successful logins use up nothing', async () => {
    const ip = newIp();
    for (let i = 0; i < 20; i++)
      expect((await login(ip, `nobody${i}@test.local`, 'whatever-password', 401)).status).toBe(401);
    expect((await login(ip, 'nobody-else@test.local', 'whatever-password', 429)).status).toBe(429);

    const regular = newIp();
    for (let i = 0; i < 25; i++) expect((await login(regular, invited, 'admin-password-123', 200)).status).toBe(200);
  });

  it('logs each failed login with the email tried, never the password', async () => {
    const password = 'a-password-nobody-may-read';
    await login(newIp(), 'guessed@test.local', password, 401);
    const lines = log.lines();
    expect(lines).toMatch(/"email":"guessed@test.local".*"msg":"admin login failed"/);
    expect(lines).not.toContain(password);
  });

  it('password-reset requests: 5 per account and 20 per address in 10 minutes, then 429', async () => {
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await reset(newIp(), 'someone@test.local', i < 5 ? 204 : 429)).status);
    expect(statuses).toEqual([204, 204, 204, 204, 204, 429]);
    const ip = newIp();
    for (let i = 0; i < 20; i++) expect((await reset(ip, `person${i}@test.local`, 204)).status).toBe(204);
    const cooldown = await reset(ip, 'one-more@test.local', 429);
    expect([cooldown.status, cooldown.body.error]).toEqual([429, 'Cooldown']);
  });
});
