import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniquePhone } from '../../tests/support/actors.js';
import {
  expectNothingAppended,
  expectResponse,
  race,
  refused,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../tests/support/apiSpecification.js';
import { SystemTimeClock } from '../../tests/support/systemTimeClock.js';

/**
 * Issue #14: OTP requests are limited per client IP as well as per phone, and every 429 says when to retry. Codes
 * and budgets are state: a code sent appends nothing, and neither does a refusal.
 */
describe('OTP abuse limits per client IP', () => {
  let t: ApiUnderTest;
  const clock = new SystemTimeClock();
  beforeAll(async () => {
    clock.install();
    t = await startApiUnderTest({
      clock,
      env: { OTP_RATE_LIMIT: 'true', OTP_REQUESTS_PER_IP_PER_WINDOW: '5', TRUST_PROXY: 'loopback' },
    });
  });
  afterAll(async () => {
    await t?.stop();
    clock.uninstall();
  });

  const requestFrom = (ip: string, phone = uniquePhone()) =>
    t.request('POST', '/api/v1/auth/otp/request', { body: { phone }, headers: { 'x-forwarded-for': ip } });
  const sent = (ip: string, phone?: string) =>
    t
      .given()
      .when(() => requestFrom(ip, phone))
      .then(expectResponse(200), expectNothingAppended);
  const cooled = (ip: string, phone?: string) => refused(t, () => requestFrom(ip, phone), 429, 'SmsSendError');

  it(
    'one address spraying many phones gets its budget, then ' +
      '429 with Retry-After, while another address is unaffected',
    async () => {
      const spray = race(() => Array.from({ length: 8 }, () => requestFrom('203.0.113.7')));
      await t.given().when(spray.send).then(expectNothingAppended);
      const sprayed = spray.responses;
      expect(sprayed.filter((r) => r.status === 200)).toHaveLength(5);
      const refused = sprayed.filter((r) => r.status === 429);
      expect(refused).toHaveLength(3);
      for (const r of refused) {
        expect(r.body).toMatchObject({ error: 'SmsSendError', retryAfterSeconds: expect.any(Number) });
        expect(Number(r.headers.get('retry-after'))).toBe(r.body.retryAfterSeconds);
        expect(r.body.retryAfterSeconds).toBeGreaterThan(0);
        expect(r.body.retryAfterSeconds).toBeLessThanOrEqual(10 * 60);
      }
      expect((await sent('198.51.100.20')).status).toBe(200);
    },
  );

  it('the address may ask again once its window has passed', async () => {
    expect((await cooled('203.0.113.7')).status).toBe(429);
    clock.advance(10 * 60_000 + 1000);
    expect((await sent('203.0.113.7')).status).toBe(200);
  });

  it('the per-phone limit still holds from many addresses, with Retry-After', async () => {
    const phone = uniquePhone();
    const answers = [];
    for (const ip of ['192.0.2.1', '192.0.2.2', '192.0.2.3']) answers.push(await sent(ip, phone));
    answers.push(await cooled('192.0.2.4', phone));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(Number(answers[3].headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
