import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeRatesModule } from '../../app/modules/exchangeRates.js';
import { exchangeRateStream } from '../../domain/exchangeRate/events.js';
import { ManualClock } from '../../infra/clock.js';
import { officialRateAt } from '../../stores/exchangeRates/exchangeRateQueries.js';
import { signInAdmin, signInClient } from '../../tests/support/actors.js';
import {
  expectError,
  expectNewEvents,
  expectNothingAppended,
  expectResponse,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../tests/support/apiSpecification.js';
import { PRODUCTION_ENV } from '../../tests/support/testService.js';

const START = '2026-03-01T12:00:00.000Z';

describe('official exchange rates', () => {
  let t: ApiUnderTest;
  const clock = new ManualClock(START);
  let adminId: number;
  let admin: string;
  let client: string;

  beforeAll(async () => {
    t = await startApiUnderTest({ clock, env: { OFFICIAL_RATE_VES: '36.5' } });
    const signedIn = await signInAdmin(t);
    admin = signedIn.token;
    adminId = signedIn.admin.id;
    client = (await signInClient(t)).token;
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('seeds the first rate from OFFICIAL_RATE_VES at start-up', async () => {
    const r = await t.request('GET', '/api/v1/admin/exchange-rates', { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      items: [{ id: expect.any(Number), currency: 'VES', rate: 36.5, rate_cents: 3650, effective_at: START }],
      meta: { total: 1, per_page: 25, current_page: 1, last_page: 1 },
    });
    // Recorded in the log like an admin's change, with no admin: the audit trail of every rate in force.
    const events = await t.service.ctx.store.readStream(exchangeRateStream('VES'));
    expect(events.map((e) => [e.type, e.data, e.metadata.actor])).toEqual([
      [
        'ExchangeRateSet',
        { currency: 'VES', rate: '36.5', rateCents: 3650, effectiveAt: START, adminId: null },
        { id: null, role: 'SYSTEM' },
      ],
    ]);
  });

  it('does not seed again when a rate exists, even from instances starting together', async () => {
    const ctx = t.service.ctx;
    await Promise.all(
      [1, 2, 3].map(() => exchangeRatesModule.init!({ ...ctx, config: { ...ctx.config, OFFICIAL_RATE_VES: 99 } })),
    );
    const r = await t.request('GET', '/api/v1/admin/exchange-rates', { token: admin });
    expect(r.body.items.map((i: { rate: number }) => i.rate)).toEqual([36.5]);
    expect(await t.service.ctx.store.readStream(exchangeRateStream('VES'))).toHaveLength(1);
  });

  it('records a rate in force from now on, with rate_cents rounded half away from zero', async () => {
    clock.advance(10 * 60_000);
    const r = await t
      .given()
      .when((api) => api.post('/admin/exchange-rates', admin, { currency: 'VES', rate: 40.125 }))
      .then(
        expectResponse(201),
        expectNewEvents(exchangeRateStream('VES'), [
          {
            type: 'ExchangeRateSet',
            data: { currency: 'VES', rate: '40.125', rateCents: 4013, effectiveAt: clock.now().toISOString(), adminId },
          },
        ]),
      );
    expect(r.body).toEqual({
      rate: {
        id: expect.any(Number),
        currency: 'VES',
        rate: 40.125,
        rate_cents: 4013,
        effective_at: clock.now().toISOString(),
      },
    });
  });

  it('picks the rate in force at an instant (officialRateAt)', async () => {
    const db = t.service.ctx.db;
    const at = (iso: string) => officialRateAt(db, new Date(iso));
    expect(await at('2026-03-01T11:59:59.999Z')).toBeNull();
    expect(await at(START)).toMatchObject({ rate: 36.5, rateCents: 3650, effectiveAt: new Date(START) });
    expect(await at('2026-03-01T12:09:59.999Z')).toMatchObject({ rateCents: 3650 });
    expect(await at('2026-03-01T12:10:00.000Z')).toMatchObject({ rate: 40.125, rateCents: 4013 });
    expect(await at('2027-01-01T00:00:00.000Z')).toMatchObject({ rateCents: 4013 });
  });

  it('lets the later of two rates recorded at the same instant win', async () => {
    clock.advance(60_000);
    const set = (rate: number) =>
      t
        .given()
        .when((api) => api.post('/admin/exchange-rates', admin, { currency: 'VES', rate }))
        .then(
          expectResponse(201),
          expectNewEvents(exchangeRateStream('VES'), [
            {
              type: 'ExchangeRateSet',
              data: { rateCents: Math.round(rate * 100), effectiveAt: clock.now().toISOString() },
            },
          ]),
        );
    const first = await set(41);
    const second = await set(42.5);
    expect(second.body.rate.id).toBeGreaterThan(first.body.rate.id);
    const inForce = await officialRateAt(t.service.ctx.db, clock.now());
    expect(inForce).toMatchObject({ id: second.body.rate.id, rateCents: 4250 });
  });

  it('lists newest first, one page at a time', async () => {
    const p1 = await t.request('GET', '/api/v1/admin/exchange-rates?limit=2', { token: admin });
    expect(p1.body.items.map((i: { rate: number }) => i.rate)).toEqual([42.5, 41]);
    expect(p1.body.meta).toEqual({ total: 4, per_page: 2, current_page: 1, last_page: 2 });
    const p2 = await t.request('GET', '/api/v1/admin/exchange-rates?limit=2&page=2', { token: admin });
    expect(p2.body.items.map((i: { rate: number }) => i.rate)).toEqual([40.125, 36.5]);
    const beyond = await t.request('GET', '/api/v1/admin/exchange-rates?limit=2&page=9', { token: admin });
    expect(beyond.body).toEqual({ items: [], meta: { total: 4, per_page: 2, current_page: 9, last_page: 2 } });
  });

  it.each([
    ['currency', { currency: 'USD', rate: 40 }],
    ['currency', { rate: 40 }],
    ['rate', { currency: 'VES' }],
    ['rate', { currency: 'VES', rate: 0 }],
    ['rate', { currency: 'VES', rate: -3 }],
    ['rate', { currency: 'VES', rate: '40' }],
    ['rate', { currency: 'VES', rate: 0.004 }],
    ['rate', { currency: 'VES', rate: 1e12 }],
    ['rate', { currency: 'VES', rate: 36.123456789 }],
  ])('refuses a bad %s with 422 naming it (%j)', async (field, body) => {
    const r = await t
      .given()
      .when((api) => api.post('/admin/exchange-rates', admin, body))
      .then(expectError(422, 'ValidationError'), expectNothingAppended);
    expect(Object.keys(r.body.details.fieldErrors)).toEqual([field]);
  });

  it.each([
    ['limit', '?limit=0'],
    ['limit', '?limit=101'],
    ['page', '?page=0'],
    ['page', '?page=x'],
  ])('refuses a bad %s query with 422 (%s)', async (field, qs) => {
    const r = await t.request('GET', `/api/v1/admin/exchange-rates${qs}`, { token: admin });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.details.fieldErrors)).toEqual([field]);
  });

  it('keeps the series to admins: 401 without a token, 403 for a client, nothing written', async () => {
    const before = await officialRateAt(t.service.ctx.db, clock.now());
    expect((await t.request('GET', '/api/v1/admin/exchange-rates')).status).toBe(401);
    await t
      .given()
      .when((api) => api.post('/admin/exchange-rates', undefined, { currency: 'VES', rate: 50 }))
      .then(expectResponse(401), expectNothingAppended);
    await t
      .given()
      .when((api) => api.post('/admin/exchange-rates', client, { currency: 'VES', rate: 50 }))
      .then(expectError(403, 'Forbidden'), expectNothingAppended);
    expect((await t.request('GET', '/api/v1/admin/exchange-rates', { token: client })).status).toBe(403);
    expect(await officialRateAt(t.service.ctx.db, clock.now())).toEqual(before);
  });
});

describe('the start-up rate on an empty series (docs/decisions/0055)', () => {
  it('instances starting together record one event and put one rate in force; a start killed in between is finished by the next', async () => {
    const clock = new ManualClock(START);
    const plain = await startApiUnderTest({ clock, env: { DEVELOPMENT_RATE_VES: '0' } });
    try {
      const ctx = plain.service.ctx;
      const starting = { ...ctx, config: { ...ctx.config, OFFICIAL_RATE_VES: 36.5 } };
      // The first start is killed after its event and before its row.
      const killed = new Proxy(ctx.db, {
        get: (db, prop) => {
          if (prop === 'transaction')
            return () => {
              throw new Error('killed before the row');
            };
          const value = Reflect.get(db, prop, db) as unknown;
          return typeof value === 'function' ? value.bind(db) : value;
        },
      });
      await expect(exchangeRatesModule.init!({ ...starting, db: killed })).rejects.toThrow('killed before the row');
      expect(await officialRateAt(ctx.db, clock.now())).toBeNull();

      clock.advance(5 * 60_000);
      await Promise.all([1, 2, 3].map(() => exchangeRatesModule.init!(starting)));
      await exchangeRatesModule.init!(starting); // a restart
      const events = await ctx.store.readStream(exchangeRateStream('VES'));
      expect(events.map((e) => [e.type, e.data])).toEqual([
        ['ExchangeRateSet', { currency: 'VES', rate: '36.5', rateCents: 3650, effectiveAt: START, adminId: null }],
      ]);
      // In force from the instant its event recorded, not from the start that finished it.
      const r = await plain.request('GET', '/api/v1/admin/exchange-rates', { token: (await signInAdmin(plain)).token });
      expect(r.body.items).toEqual([
        { id: expect.any(Number), currency: 'VES', rate: 36.5, rate_cents: 3650, effective_at: START },
      ]);
    } finally {
      await plain.stop();
    }
  });
});

describe('official exchange rates without OFFICIAL_RATE_VES', () => {
  it('start with no rate in force outside production when unset, and never seed in production', async () => {
    const plain = await startApiUnderTest({ env: { DEVELOPMENT_RATE_VES: '0' } });
    try {
      expect(await officialRateAt(plain.service.ctx.db, new Date('2100-01-01'))).toBeNull();
    } finally {
      await plain.stop();
    }
    const production = await startApiUnderTest({ env: { ...PRODUCTION_ENV, OFFICIAL_RATE_VES: '36.5' } });
    try {
      expect(await officialRateAt(production.service.ctx.db, new Date('2100-01-01'))).toBeNull();
    } finally {
      await production.stop();
    }
  });
});
