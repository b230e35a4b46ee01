import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driverStream } from '../../domain/driver/events.js';
import { orderStream } from '../../domain/order/events.js';
import { ManualClock } from '../../infra/clock.js';
import { signInClient, signInDriver, uniquePhone } from '../../tests/support/actors.js';
import {
  appendingNothing,
  expectNewEvents,
  expectResponse,
  refused,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../tests/support/apiSpecification.js';
import { arrive, call, confirmedOrder, orderBody } from '../../tests/support/orderFlows.js';
import { SystemTimeClock } from '../../tests/support/systemTimeClock.js';
import type { TestService } from '../../tests/support/testService.js';

const requestCode = async (t: TestService, phone: string): Promise<string> => {
  const r = await t.request('POST', '/api/v1/auth/otp/request', { body: { phone } });
  expect(r.status).toBe(200);
  return r.body.code;
};
const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('identity: phone sign-in, app tokens, /me', () => {
  let t: ApiUnderTest;
  const request = appendingNothing(() => t);
  const clock = new ManualClock('2026-03-01T12:00:00Z');
  beforeAll(async () => {
    t = await startApiUnderTest({ clock });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('signs a client up with a code, then in again', async () => {
    const phone = uniquePhone();
    const req = await request('POST', '/api/v1/auth/otp/request', { body: { phone } });
    expect(req.status).toBe(200);
    expect(req.body).toEqual({ sent: true, mocked: true, code: expect.stringMatching(/^\d{6}$/) });
    const outbox = await request('GET', `/api/v1/dev/outbox?to=${encodeURIComponent(phone)}`);
    expect(outbox.body.messages.at(-1)).toMatchObject({ channel: 'sms', to: phone });
    expect(outbox.body.messages.at(-1).body).toContain(req.body.code);

    const v = await request('POST', '/api/v1/auth/otp/verify', { body: { phone, code: req.body.code } });
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({
      isNew: true,
      needsUserData: true,
      user: { phone, name: null, hasClientProfile: true, hasDriverProfile: false, isDriverPending: false },
    });
    expect(v.body.token).toEqual(expect.any(String));

    const named = await request('PATCH', '/api/v1/me', {
      token: v.body.token,
      body: { name: 'Ana Pérez', email: 'Ana@Example.com' },
    });
    expect(named.status).toBe(200);
    expect(named.body.user).toMatchObject({
      id: v.body.user.id,
      name: 'Ana Pérez',
      email: 'ana@example.com',
      hasClientProfile: true,
      hasDriverProfile: false,
      isDriverPending: false,
    });

    const v2 = await request('POST', '/api/v1/auth/otp/verify', {
      body: { phone, code: await requestCode(t, phone), app: 'client' },
    });
    expect(v2.body).toMatchObject({
      isNew: false,
      needsUserData: false,
      user: { id: v.body.user.id, name: 'Ana Pérez' },
    });
    expect(v2.body.token).not.toBe(v.body.token);
  });

  it('GET /me: a client has clientProfile and no driver; a driver the reverse', async () => {
    const c = await signInClient(t);
    const me = await request('GET', '/api/v1/me', { token: c.token });
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({
      id: c.user.id,
      isActive: true,
      clientProfile: { totalOrders: 0, totalLitersOrdered: 0, totalSolidaryUSD: 0 },
      driver: null,
    });

    const d = await signInDriver(t, { approved: false });
    const dm = await request('GET', '/api/v1/me', { token: d.token });
    expect(dm.body.user.clientProfile).toBeNull();
    expect(dm.body.user.driver).toMatchObject({
      id: d.driverId,
      status: 'PENDING_VERIFICATION',
      isOnline: false,
      availableLiters: 0,
      remainingLiters: 0,
      avgRating: 0,
      completedOrders: 0,
      isCertified: false,
    });
  });

  it('a new driver is PENDING_VERIFICATION (isDriverPending) until approved', async () => {
    const phone = uniquePhone();
    const code = await requestCode(t, phone);
    const registrations = async (allNewEvents: () => Promise<{ type: string; data: unknown }[]>) =>
      (await allNewEvents()).filter((e) => e.type === 'DriverRegistered');
    const v = await t
      .given()
      .when((api) => api.post('/auth/otp/verify', undefined, { phone, code, app: 'driver' }))
      .then(expectResponse(200), async (outcome) => {
        // The first sign-in in the driver app registers the driver, nameless until the profile says.
        expect(await registrations(outcome.allNewEvents)).toMatchObject([
          {
            data: { userId: outcome.response.body.user.id, phone, name: null, registeredAt: clock.now().toISOString() },
          },
        ]);
      });
    expect(v.body.user).toMatchObject({ hasClientProfile: false, hasDriverProfile: true, isDriverPending: true });
    const approved = await signInDriver(t);
    const againCode = await requestCode(t, approved.user.phone);
    const again = await t
      .given()
      .when((api) =>
        api.post('/auth/otp/verify', undefined, { phone: approved.user.phone, code: againCode, app: 'driver' }),
      )
      .then(expectResponse(200), async (outcome) =>
        // Signing in again registers nobody.
        expect(await registrations(outcome.allNewEvents)).toEqual([]),
      );
    expect(again.body.user).toMatchObject({ hasDriverProfile: true, isDriverPending: false });
  });

  it('a phone maps to one role: 409 RoleConflict both ways', async () => {
    const c = await signInClient(t);
    const clientCode = await requestCode(t, c.user.phone);
    // A client's phone registers no driver.
    await refused(
      t,
      (api) => api.post('/auth/otp/verify', undefined, { phone: c.user.phone, code: clientCode, app: 'driver' }),
      409,
      'RoleConflict',
    );
    const d = await signInDriver(t, { approved: false });
    const driverCode = await requestCode(t, d.user.phone);
    await refused(
      t,
      (api) => api.post('/auth/otp/verify', undefined, { phone: d.user.phone, code: driverCode }),
      409,
      'RoleConflict',
    );
  });

  it('401 InvalidOtp for a wrong, an expired, a replaced or an already used code', async () => {
    const phone = uniquePhone();
    const code = await requestCode(t, phone);
    const wrong = await request('POST', '/api/v1/auth/otp/verify', { body: { phone, code: wrongCode(code) } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('InvalidOtp');
    const unknownPhone = await request('POST', '/api/v1/auth/otp/verify', { body: { phone: uniquePhone(), code } });
    expect(unknownPhone.body.error).toBe('InvalidOtp');

    clock.advance(5 * 60_000 + 1);
    const expired = await request('POST', '/api/v1/auth/otp/verify', { body: { phone, code } });
    expect(expired.status).toBe(401);
    expect(expired.body.error).toBe('InvalidOtp');

    const first = await requestCode(t, phone);
    const second = await requestCode(t, phone);
    if (first !== second)
      expect((await request('POST', '/api/v1/auth/otp/verify', { body: { phone, code: first } })).body.error).toBe(
        'InvalidOtp',
      );
    expect((await request('POST', '/api/v1/auth/otp/verify', { body: { phone, code: second } })).status).toBe(200);
    const reused = await request('POST', '/api/v1/auth/otp/verify', { body: { phone, code: second } });
    expect(reused.status).toBe(401);
    expect(reused.body.error).toBe('InvalidOtp');
  });

  it('a code dies after OTP_MAX_ATTEMPTS wrong tries, even with the right code after', async () => {
    const phone = uniquePhone();
    const code = await requestCode(t, phone);
    for (let i = 0; i < 5; i++)
      expect(
        (await request('POST', '/api/v1/auth/otp/verify', { body: { phone, code: wrongCode(code) } })).status,
      ).toBe(401);
    const right = await request('POST', '/api/v1/auth/otp/verify', { body: { phone, code } });
    expect(right.status).toBe(401);
    expect(right.body.error).toBe('InvalidOtp');
  });

  it('brute force in parallel: 50 concurrent wrong guesses use up the code', async () => {
    const phone = uniquePhone();
    const code = await requestCode(t, phone);
    const guesses = Array.from({ length: 50 }, (_, i) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0'));
    const results = await Promise.all(
      guesses.map((g) => request('POST', '/api/v1/auth/otp/verify', { body: { phone, code: g } })),
    );
    expect(results.every((r) => r.status === 401 && r.body.error === 'InvalidOtp')).toBe(true);
    // Only OTP_MAX_ATTEMPTS guesses were ever compared, and the last one killed the code.
    expect((await request('POST', '/api/v1/auth/otp/verify', { body: { phone, code } })).status).toBe(401);
  });

  it('two concurrent verifications of the right code: one token', async () => {
    const phone = uniquePhone();
    const code = await requestCode(t, phone);
    const [a, b] = await Promise.all(
      [0, 1].map(() => request('POST', '/api/v1/auth/otp/verify', { body: { phone, code } })),
    );
    expect([a.status, b.status].sort()).toEqual([200, 401]);
  });

  it('refresh revokes the old token; logout revokes the current one', async () => {
    const c = await signInClient(t);
    const r = await request('POST', '/api/v1/auth/refresh', { token: c.token });
    expect(r.status).toBe(200);
    expect(r.body.token).toEqual(expect.any(String));
    expect((await request('GET', '/api/v1/me', { token: c.token })).status).toBe(401);
    expect((await request('POST', '/api/v1/auth/refresh', { token: c.token })).status).toBe(401);
    expect((await request('GET', '/api/v1/me', { token: r.body.token })).status).toBe(200);

    const out = await request('POST', '/api/v1/auth/logout', { token: r.body.token });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ ok: true });
    const after = await request('GET', '/api/v1/me', { token: r.body.token });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('Unauthorized');
    expect((await request('POST', '/api/v1/auth/logout', { token: r.body.token })).status).toBe(401);
  });

  it('two concurrent refreshes of one token: one new token', async () => {
    const c = await signInClient(t);
    const results = await Promise.all([0, 1, 2].map(() => request('POST', '/api/v1/auth/refresh', { token: c.token })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 401)).toHaveLength(2);
  });

  it('signing in on another device leaves the first token valid', async () => {
    const c = await signInClient(t);
    const code = await requestCode(t, c.user.phone);
    const second = await request('POST', '/api/v1/auth/otp/verify', { body: { phone: c.user.phone, code } });
    expect((await request('GET', '/api/v1/me', { token: c.token })).status).toBe(200);
    expect((await request('GET', '/api/v1/me', { token: second.body.token })).status).toBe(200);
  });

  it('401 for no token, a made-up token and a forged JWT', async () => {
    for (const token of [undefined, 'not-a-token', 'a.b.c', 'x'.repeat(500)]) {
      const r = await request('GET', '/api/v1/me', { token });
      expect(r.status).toBe(401);
      expect(r.body.error).toBe('Unauthorized');
    }
  });

  it('PATCH /me: email unique among users (422 naming email); a driver’s name reaches the driver record', async () => {
    const a = await signInClient(t);
    const b = await signInClient(t);
    expect(
      (await request('PATCH', '/api/v1/me', { token: a.token, body: { name: 'Ana', email: 'shared@example.com' } }))
        .status,
    ).toBe(200);
    expect(
      (await request('PATCH', '/api/v1/me', { token: a.token, body: { name: 'Ana', email: 'shared@example.com' } }))
        .status,
    ).toBe(200);
    const taken = await refused(
      t,
      (api) => api.patch('/me', b.token, { name: 'Beto', email: 'SHARED@example.com' }),
      422,
      'ValidationError',
    );
    expect(taken.body.details.fieldErrors.email).toBeDefined();

    const d = await signInDriver(t, { approved: false, name: 'Carlos' });
    expect(d.user.driver).toMatchObject({ name: 'Carlos' });
    await t
      .given()
      .when((api) => api.patch('/me', d.token, { name: 'Carlos Ruiz' }))
      .then(
        expectResponse(200),
        expectNewEvents(driverStream(d.driverId), [
          { type: 'DriverRenamed', data: { driverId: d.driverId, name: 'Carlos Ruiz' } },
        ]),
      );
    expect((await request('GET', '/api/v1/me', { token: d.token })).body.user).toMatchObject({
      name: 'Carlos Ruiz',
      driver: { name: 'Carlos Ruiz' },
    });
  });

  it('422 ValidationError naming each bad body field', async () => {
    const c = await signInClient(t);
    const cases: [string, string, unknown, string, string?][] = [
      ['POST', '/api/v1/auth/otp/request', {}, 'phone'],
      ['POST', '/api/v1/auth/otp/request', { phone: '04121234567' }, 'phone'],
      ['POST', '/api/v1/auth/otp/request', { phone: '+123' }, 'phone'],
      ['POST', '/api/v1/auth/otp/request', { phone: '+1234567890123456' }, 'phone'],
      ['POST', '/api/v1/auth/otp/request', { phone: 584121234567 }, 'phone'],
      ['POST', '/api/v1/auth/otp/verify', { code: '123456' }, 'phone'],
      ['POST', '/api/v1/auth/otp/verify', { phone: '+584121234567' }, 'code'],
      ['POST', '/api/v1/auth/otp/verify', { phone: '+584121234567', code: '12345' }, 'code'],
      ['POST', '/api/v1/auth/otp/verify', { phone: '+584121234567', code: '12345a' }, 'code'],
      ['POST', '/api/v1/auth/otp/verify', { phone: '+584121234567', code: 123456 }, 'code'],
      ['POST', '/api/v1/auth/otp/verify', { phone: '+584121234567', code: '123456', app: 'admin' }, 'app'],
      ['PATCH', '/api/v1/me', {}, 'name', c.token],
      ['PATCH', '/api/v1/me', { name: 'A' }, 'name', c.token],
      ['PATCH', '/api/v1/me', { name: 'x'.repeat(81) }, 'name', c.token],
      ['PATCH', '/api/v1/me', { name: 'Ana', email: 'not-an-email' }, 'email', c.token],
      ['PATCH', '/api/v1/me', { name: 'Ana', email: `${'x'.repeat(115)}@e.com` }, 'email', c.token],
      // What `format: email` refuses too: over 64 characters before the @, a label ending in a hyphen, `--`
      // in a label's third and fourth place.
      ['PATCH', '/api/v1/me', { name: 'Ana', email: `${'x'.repeat(65)}@e.com` }, 'email', c.token],
      ['PATCH', '/api/v1/me', { name: 'Ana', email: 'ana@agua-.com' }, 'email', c.token],
      ['PATCH', '/api/v1/me', { name: 'Ana', email: 'ana@ab--cd.com' }, 'email', c.token],
      ['POST', '/api/v1/auth/dev-token', { app: 'client' }, 'userId'],
      ['POST', '/api/v1/auth/dev-token', { userId: 'one', app: 'client' }, 'userId'],
      ['POST', '/api/v1/auth/dev-token', { userId: 1 }, 'app'],
      ['POST', '/api/v1/auth/dev-token', { userId: 1, app: 'boss' }, 'app'],
    ];
    for (const [method, path, body, field, token] of cases) {
      const r = await request(method, path, { body, token });
      expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(422);
      expect(r.body.error).toBe('ValidationError');
      expect(Object.keys(r.body.details.fieldErrors), `${path} ${JSON.stringify(body)}`).toContain(field);
    }
    const malformed = await request('POST', '/api/v1/auth/otp/request', { raw: '{"phone":' });
    expect(malformed.status).toBe(422);
  });

  it('dev endpoints: lookup and token, with their errors', async () => {
    const c = await signInClient(t, uniquePhone(), 'Dev Cliente');
    const d = await signInDriver(t, { approved: false });
    const look = await request('GET', `/api/v1/auth/dev-lookup?phone=${encodeURIComponent(c.user.phone)}`);
    expect(look.status).toBe(200);
    expect(look.body).toEqual({
      userId: c.user.id,
      name: 'Dev Cliente',
      hasClientProfile: true,
      hasDriverProfile: false,
    });
    const missing = await request('GET', '/api/v1/auth/dev-lookup');
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('MissingPhone');
    const unknown = await request('GET', `/api/v1/auth/dev-lookup?phone=${encodeURIComponent(uniquePhone())}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('UserNotFound');

    const minted = await request('POST', '/api/v1/auth/dev-token', { body: { userId: c.user.id, app: 'client' } });
    expect(minted.status).toBe(200);
    expect(minted.body.user).toEqual({
      id: c.user.id,
      name: 'Dev Cliente',
      hasClientProfile: true,
      hasDriverProfile: false,
      isDriverPending: false,
    });
    expect((await request('GET', '/api/v1/me', { token: minted.body.token })).body.user.id).toBe(c.user.id);
    const driverToken = await request('POST', '/api/v1/auth/dev-token', {
      body: { userId: d.user.id, app: 'driver' },
    });
    expect(driverToken.body.user).toMatchObject({ hasDriverProfile: true, isDriverPending: true });

    expect(
      (await request('POST', '/api/v1/auth/dev-token', { body: { userId: 999_999, app: 'client' } })).body.error,
    ).toBe('UserNotFound');
    const noClient = await request('POST', '/api/v1/auth/dev-token', { body: { userId: d.user.id, app: 'client' } });
    expect([noClient.status, noClient.body.error]).toEqual([400, 'NoClientProfile']);
    const noDriver = await request('POST', '/api/v1/auth/dev-token', { body: { userId: c.user.id, app: 'driver' } });
    expect([noDriver.status, noDriver.body.error]).toEqual([400, 'NoDriverProfile']);
  });

  it('GET /cities: Caracas first, for any signed-in caller', async () => {
    const c = await signInClient(t);
    const r = await request('GET', '/api/v1/cities', { token: c.token });
    expect(r.status).toBe(200);
    expect(r.body.cities[0]).toEqual({ id: 1, name: 'Caracas' });
    expect(r.body.cities.length).toBeGreaterThan(5);
    expect((await request('GET', '/api/v1/cities')).status).toBe(401);
  });
});

describe('identity: OTP rate limits held in the database', () => {
  let t: ApiUnderTest;
  const request = appendingNothing(() => t);
  const clock = new SystemTimeClock('2026-03-01T12:00:00Z');
  beforeAll(async () => {
    clock.install();
    t = await startApiUnderTest({ clock, env: { OTP_RATE_LIMIT: 'true' } });
  });
  afterAll(async () => {
    await t?.stop();
    clock.uninstall();
  });

  it('3 code requests per 10 minutes per phone, then 429 SmsSendError', async () => {
    const phone = uniquePhone();
    const results = await Promise.all(
      [0, 1, 2, 3, 4].map(() => request('POST', '/api/v1/auth/otp/request', { body: { phone } })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    const refused = results.filter((r) => r.status === 429);
    expect(refused).toHaveLength(2);
    expect(refused[0].body.error).toBe('SmsSendError');
    expect((await request('POST', '/api/v1/auth/otp/request', { body: { phone: uniquePhone() } })).status).toBe(200);
    clock.advance(10 * 60_000 + 1000);
    expect((await request('POST', '/api/v1/auth/otp/request', { body: { phone } })).status).toBe(200);
  });

  it('5 verifications per 10 minutes per phone, then 429 Cooldown even with the right code', async () => {
    const phone = uniquePhone();
    const code = await requestCode(t, phone);
    for (let i = 0; i < 4; i++)
      expect(
        (await request('POST', '/api/v1/auth/otp/verify', { body: { phone, code: wrongCode(code) } })).status,
      ).toBe(401);
    const code2 = await requestCode(t, phone);
    expect((await request('POST', '/api/v1/auth/otp/verify', { body: { phone, code: wrongCode(code2) } })).status).toBe(
      401,
    );
    const limited = await request('POST', '/api/v1/auth/otp/verify', { body: { phone, code: code2 } });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('Cooldown');
    expect(limited.body.retryAfterSeconds).toBeGreaterThan(0);
    clock.advance(10 * 60_000 + 1000);
    const code3 = await requestCode(t, phone);
    expect((await request('POST', '/api/v1/auth/otp/verify', { body: { phone, code: code3 } })).status).toBe(200);
  });
});

describe("identity: GET /me clientProfile reflects the client's orders", () => {
  let t: ApiUnderTest;
  beforeAll(async () => {
    t = await startApiUnderTest({ env: { OFFICIAL_RATE_VES: '36.5' } });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it(
    "counts delivered orders, their liters and the client's " +
      'solidary contribution; a cancelled order does not count',
    async () => {
      const api = call(t);
      const client = await signInClient(t);
      const paid = await confirmedOrder(t, { client, body: { paymentMethod: 'PAYPROV_DI', basePrice: 25 } });
      const payer = { bank_code: '0102', id_number: '12345678', phone: '04141234567' };
      expect((await api.post(`/orders/${paid.orderId}/payment/prepare`, client.token, payer)).status).toBe(200);
      expect(
        (await api.post(`/orders/${paid.orderId}/payment/report`, client.token, { ...payer, otp: '123456' })).body
          .payment.status,
      ).toBe('CONFIRMED');
      const pin: string = (await api.get(`/orders/${paid.orderId}`, client.token)).body.order.delivery_pin;
      await arrive(t, paid);
      const delivered = await t
        .given()
        .when((api) =>
          api.post(`/orders/${paid.orderId}/deliver`, paid.driver.token, { deliveryPin: pin, actualLiters: 1800 }),
        )
        .then(
          expectResponse(200),
          expectNewEvents(orderStream(paid.orderId), [{ type: 'OrderDelivered', data: { actualLiters: 1800 } }]),
        );
      expect(delivered.body).toEqual({ ok: true });

      const cancelled = await t
        .given()
        .when((api) => api.post('/orders', client.token, orderBody({ litersRequested: 3000 })))
        .then(
          expectResponse(201),
          expectNewEvents(
            (r) => orderStream(r.body.order.id),
            [{ type: 'OrderCreated', data: { clientId: client.user.id, litersRequested: 3000 } }],
          ),
        );
      expect(cancelled.status).toBe(201);
      const cancelledId: number = cancelled.body.order.id;
      expect(
        (
          await t
            .given()
            .when((api) => api.post(`/orders/${cancelledId}/cancel`, client.token, {}))
            .then(expectResponse(200), expectNewEvents(orderStream(cancelledId), [{ type: 'OrderCancelled' }]))
        ).status,
      ).toBe(200);

      const me = await api.get('/me', client.token);
      expect(me.status).toBe(200);
      // 25.00 published, 1 % client solidary = 0.25 USD; cash and cancelled orders add nothing.
      expect(me.body.user.clientProfile).toEqual({ totalOrders: 1, totalLitersOrdered: 1800, totalSolidaryUSD: 0.25 });
    },
  );
});
