import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promotionStream } from '../../../domain/promotion/events.js';
import { ManualClock } from '../../../infra/clock.js';
import { signInAdmin, signInClient, type SignedInAdmin } from '../../../tests/support/actors.js';
import {
  expectNewEvents,
  expectNoNewEvents,
  expectResponse,
  race,
  refused,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../../tests/support/apiSpecification.js';
import { call } from '../../../tests/support/orderFlows.js';
import type { TestResponse } from '../../../tests/support/testService.js';

const campaign = (over: Record<string, unknown> = {}) => ({
  name: 'Quinta entrega gratis',
  audience: 'CLIENT',
  credit_scope: 'ORDERS',
  milestone_orders: 5,
  amount_usd: 10,
  // Inactive, so that no delivery of another test grants from it.
  active: false,
  ...over,
});

describe('promotion campaigns (back office, super admin)', () => {
  let t: ApiUnderTest;
  const promotionOf = (r: TestResponse) => promotionStream(r.body.promotion.id);
  let api: ReturnType<typeof call>;
  let root: SignedInAdmin;
  beforeAll(async () => {
    t = await startApiUnderTest({ clock: new ManualClock() });
    api = call(t);
    root = await signInAdmin(t);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('is for super admins only: 401 without a token, 403 for an admin or a client', async () => {
    const admin = await signInAdmin(t, { superAdmin: false, cityIds: [1] });
    const client = await signInClient(t);
    for (const [method, path] of [
      ['get', '/admin/promotions'],
      ['post', '/admin/promotions'],
      ['get', '/admin/promotions/1'],
      ['patch', '/admin/promotions/1'],
      ['del', '/admin/promotions/1'],
      ['get', '/admin/promotions/1/grants'],
    ] as const) {
      const body = method === 'get' ? undefined : campaign();
      for (const [token, status] of [
        [undefined, 401],
        [admin.token, 403],
        [client.token, 403],
      ] as const) {
        const r = await refused(t, (api) => api[method](path, token, body), status);
        expect(r.status, `${method} ${path}`).toBe(status);
      }
    }
  });

  it('creates a campaign with the spec defaults and reads it back', async () => {
    const created = await t
      .given()
      .when((api) =>
        api.post('/admin/promotions', root.token, {
          name: 'Bienvenida',
          audience: 'CLIENT',
          credit_scope: 'ANY',
          milestone_orders: 1,
          amount_usd: 2.5,
        }),
      )
      .then(
        expectResponse(201),
        // The spec's defaults are part of the terms recorded: lifetime basis, no city, no window, no cap, active.
        expectNewEvents(promotionOf, [
          {
            type: 'PromotionCreated',
            data: {
              terms: {
                name: 'Bienvenida',
                description: null,
                audience: 'CLIENT',
                creditScope: 'ANY',
                milestoneOrders: 1,
                milestoneBasis: 'LIFETIME',
                amountCents: 250,
                cityId: null,
                startsAt: null,
                endsAt: null,
                maxGrants: null,
                active: true,
              },
            },
          },
        ]),
      );
    const p = created.body.promotion;
    expect(p).toEqual({
      id: expect.any(Number),
      name: 'Bienvenida',
      description: null,
      audience: 'CLIENT',
      credit_scope: 'ANY',
      milestone_orders: 1,
      milestone_basis: 'LIFETIME',
      amount_usd: 2.5,
      city_id: null,
      starts_at: null,
      ends_at: null,
      max_grants: null,
      grants_count: 0,
      granted_amount_usd: 0,
      active: true,
      is_running: true,
      created_at: expect.any(String),
    });
    expect((await api.get(`/admin/promotions/${p.id}`, root.token)).body).toEqual({ promotion: p });
    // Off again: this file's other tests deliver no orders, but keep the service tidy.
    await t
      .given()
      .when((api) => api.patch(`/admin/promotions/${p.id}`, root.token, { active: false }))
      .then(
        expectResponse(200, { body: { promotion: { active: false, is_running: false } } }),
        expectNewEvents(promotionStream(p.id), [
          { type: 'PromotionUpdated', data: { promotionId: p.id, changes: { active: false } } },
        ]),
      );
  });

  it('accepts driver campaigns without a credit scope', async () => {
    const r = await t
      .given()
      .when((api) =>
        api.post(
          '/admin/promotions',
          root.token,
          campaign({ audience: 'DRIVER', credit_scope: null, city_id: 2, max_grants: 50, milestone_basis: 'CAMPAIGN' }),
        ),
      )
      .then(
        expectResponse(201),
        expectNewEvents(promotionOf, [
          {
            type: 'PromotionCreated',
            data: {
              terms: { audience: 'DRIVER', creditScope: null, cityId: 2, maxGrants: 50, milestoneBasis: 'CAMPAIGN' },
            },
          },
        ]),
      );
    expect(r.body.promotion).toMatchObject({
      audience: 'DRIVER',
      credit_scope: null,
      city_id: 2,
      max_grants: 50,
      milestone_basis: 'CAMPAIGN',
    });
    const omitted = await api.post('/admin/promotions', root.token, {
      name: 'Conductores',
      audience: 'DRIVER',
      milestone_orders: 10,
      amount_usd: 5,
    });
    expect(omitted.status).toBe(201);
    expect(omitted.body.promotion.credit_scope).toBeNull();
  });

  it('answers 422 naming each bad field', async () => {
    const bad = await refused(
      t,
      (api) =>
        api.post('/admin/promotions', root.token, {
          name: 'x'.repeat(121),
          description: 'd'.repeat(256),
          audience: 'EVERYONE',
          milestone_orders: 0,
          milestone_basis: 'FOREVER',
          amount_usd: 10_000.01,
          city_id: 'one',
          starts_at: 'tomorrow',
          max_grants: 0,
          active: 'yes',
        }),
      422,
      'ValidationError',
    );
    expect(bad.status).toBe(422);
    expect(bad.body.error).toBe('ValidationError');
    expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual(
      [
        'active',
        'amount_usd',
        'audience',
        'city_id',
        'description',
        'max_grants',
        'milestone_basis',
        'milestone_orders',
        'name',
        'starts_at',
      ].sort(),
    );
    const missing = await refused(t, (api) => api.post('/admin/promotions', root.token, {}), 422);
    expect(Object.keys(missing.body.details.fieldErrors).sort()).toEqual([
      'amount_usd',
      'audience',
      'milestone_orders',
      'name',
    ]);
    const limits: [Record<string, unknown>, string][] = [
      [{ milestone_orders: 1001 }, 'milestone_orders'],
      [{ milestone_orders: 2.5 }, 'milestone_orders'],
      [{ amount_usd: 0 }, 'amount_usd'],
      // Above 0 but less than a cent: it would be a campaign of 0 cents.
      [{ amount_usd: 1e-10 }, 'amount_usd'],
      [{ amount_usd: 1.005 }, 'amount_usd'],
      [{ name: '' }, 'name'],
      [{ city_id: 999 }, 'city_id'],
      [{ city_id: 2 ** 31 }, 'city_id'],
      [{ max_grants: 2 ** 31 }, 'max_grants'],
      [{ credit_scope: null }, 'credit_scope'],
      [{ credit_scope: 'EVERYTHING' }, 'credit_scope'],
      [{ audience: 'DRIVER', credit_scope: 'ANY' }, 'credit_scope'],
      [{ starts_at: '2026-06-01', ends_at: '2026-06-01' }, 'ends_at'],
      [{ starts_at: '2026-06-02T00:00:00Z', ends_at: '2026-06-01T23:59:59Z' }, 'ends_at'],
      [{ ends_at: '2026-02-30' }, 'ends_at'],
    ];
    for (const [over, field] of limits) {
      const r = await refused(t, (api) => api.post('/admin/promotions', root.token, campaign(over)), 422);
      expect(r.status, JSON.stringify(over)).toBe(422);
      expect(Object.keys(r.body.details.fieldErrors), JSON.stringify(over)).toEqual([field]);
    }
    await t
      .given()
      .when((api) =>
        api.post(
          '/admin/promotions',
          root.token,
          campaign({
            name: 'n'.repeat(120),
            description: 'd'.repeat(255),
            milestone_orders: 1000,
            amount_usd: 10_000,
            max_grants: 1,
          }),
        ),
      )
      .then(
        expectResponse(201),
        expectNewEvents(promotionOf, [
          {
            type: 'PromotionCreated',
            data: { terms: { name: 'n'.repeat(120), milestoneOrders: 1000, amountCents: 1_000_000, maxGrants: 1 } },
          },
        ]),
      );
    expect(
      (await api.post('/admin/promotions', root.token, campaign({ amount_usd: 0.01, milestone_orders: 1 }))).status,
    ).toBe(201);
    // The largest cap the read model holds is stored and read back.
    const widest = await api.post('/admin/promotions', root.token, campaign({ max_grants: 2 ** 31 - 1 }));
    expect(widest.status).toBe(201);
    expect((await api.get(`/admin/promotions/${widest.body.promotion.id}`, root.token)).body.promotion.max_grants).toBe(
      2 ** 31 - 1,
    );
  });

  it('merge-updates only the fields sent, checking combinations on the effective values', async () => {
    const created = (
      await api.post(
        '/admin/promotions',
        root.token,
        campaign({ description: 'Antes', starts_at: '2026-06-01', ends_at: '2026-07-01T00:00:00Z' }),
      )
    ).body.promotion;
    expect(created).toMatchObject({ starts_at: '2026-06-01T00:00:00.000Z', ends_at: '2026-07-01T00:00:00.000Z' });
    const stream = promotionStream(created.id);
    const patched = await t
      .given()
      .when((api) =>
        api.patch(`/admin/promotions/${created.id}`, root.token, {
          name: 'Renombrada',
          description: null,
          amount_usd: 12.34,
        }),
      )
      .then(
        expectResponse(200),
        // Only the terms sent.
        expectNewEvents(stream, [
          { type: 'PromotionUpdated', data: { changes: { name: 'Renombrada', description: null, amountCents: 1234 } } },
        ]),
        async ({ newEventsOf }) =>
          expect(Object.keys(((await newEventsOf(stream))[0].data as { changes: object }).changes).sort()).toEqual([
            'amountCents',
            'description',
            'name',
          ]),
      );
    expect(patched.body.promotion).toEqual({ ...created, name: 'Renombrada', description: null, amount_usd: 12.34 });
    const unchanged = await t
      .given()
      .when((api) => api.patch(`/admin/promotions/${created.id}`, root.token, {}))
      .then(expectResponse(200), expectNoNewEvents(stream));
    expect(unchanged.body.promotion).toEqual(patched.body.promotion);

    const badEnd = await refused(
      t,
      (api) => api.patch(`/admin/promotions/${created.id}`, root.token, { ends_at: '2026-05-31' }),
      422,
    );
    expect(badEnd.status).toBe(422);
    expect(Object.keys(badEnd.body.details.fieldErrors)).toEqual(['ends_at']);
    const toDriver = await refused(
      t,
      (api) => api.patch(`/admin/promotions/${created.id}`, root.token, { audience: 'DRIVER' }),
      422,
    );
    expect(toDriver.status).toBe(422);
    expect(Object.keys(toDriver.body.details.fieldErrors)).toEqual(['credit_scope']);
    const dropScope = await refused(
      t,
      (api) => api.patch(`/admin/promotions/${created.id}`, root.token, { credit_scope: null }),
      422,
    );
    expect(Object.keys(dropScope.body.details.fieldErrors)).toEqual(['credit_scope']);
    const badTypes = await refused(
      t,
      (api) =>
        api.patch(`/admin/promotions/${created.id}`, root.token, { milestone_orders: 0, amount_usd: -1, city_id: 999 }),
      422,
    );
    expect(badTypes.status).toBe(422);
    expect(Object.keys(badTypes.body.details.fieldErrors).sort()).toEqual(['amount_usd', 'milestone_orders']);
    expect(
      Object.keys(
        (await refused(t, (api) => api.patch(`/admin/promotions/${created.id}`, root.token, { city_id: 999 }), 422))
          .body.details.fieldErrors,
      ),
    ).toEqual(['city_id']);
    expect((await api.get(`/admin/promotions/${created.id}`, root.token)).body.promotion).toEqual(
      patched.body.promotion,
    );

    const both = await t
      .given()
      .when((api) =>
        api.patch(`/admin/promotions/${created.id}`, root.token, {
          audience: 'DRIVER',
          credit_scope: null,
          city_id: 3,
          ends_at: null,
        }),
      )
      .then(
        expectResponse(200),
        expectNewEvents(stream, [
          {
            type: 'PromotionUpdated',
            data: { changes: { audience: 'DRIVER', creditScope: null, cityId: 3, endsAt: null } },
          },
        ]),
      );
    expect(both.body.promotion).toMatchObject({ audience: 'DRIVER', credit_scope: null, city_id: 3, ends_at: null });
  });

  it('lists newest first with filters', async () => {
    const a = (
      await api.post(
        '/admin/promotions',
        root.token,
        campaign({ name: 'Filtro A', city_id: 5, credit_scope: 'SURPLUS' }),
      )
    ).body.promotion;
    const b = (
      await api.post(
        '/admin/promotions',
        root.token,
        campaign({ name: 'Filtro B', city_id: 5, audience: 'DRIVER', credit_scope: null }),
      )
    ).body.promotion;
    const all = (await api.get('/admin/promotions', root.token)).body.items;
    expect(all.slice(0, 2).map((p: { id: number }) => p.id)).toEqual([b.id, a.id]);
    const ids = async (query: string) =>
      (await api.get(`/admin/promotions?${query}`, root.token)).body.items.map((p: { id: number }) => p.id);
    expect(await ids('city_id=5')).toEqual([b.id, a.id]);
    expect(await ids('city_id=5&audience=CLIENT')).toEqual([a.id]);
    expect(await ids('city_id=5&credit_scope=SURPLUS')).toEqual([a.id]);
    expect(await ids('city_id=5&active=true')).toEqual([]);
    expect(await ids('city_id=5&active=false')).toEqual([b.id, a.id]);
    const bad = await api.get('/admin/promotions?audience=ALL&active=maybe&city_id=x&credit_scope=NONE', root.token);
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual(['active', 'audience', 'city_id', 'credit_scope']);
  });

  it('deletes a campaign without grants; unknown ids are 404 PromotionNotFound', async () => {
    const p = (await api.post('/admin/promotions', root.token, campaign())).body.promotion;
    const del = await t
      .given()
      .when((api) => api.del(`/admin/promotions/${p.id}`, root.token))
      .then(
        expectResponse(200),
        expectNewEvents(promotionStream(p.id), [{ type: 'PromotionDeleted', data: { promotionId: p.id } }]),
      );
    expect(del.body).toEqual({ deleted: true });
    for (const id of [p.id, 999_999, 'abc']) {
      for (const r of [
        await api.get(`/admin/promotions/${id}`, root.token),
        await refused(t, (api) => api.patch(`/admin/promotions/${id}`, root.token, { name: 'x' }), 404),
        await refused(t, (api) => api.del(`/admin/promotions/${id}`, root.token), 404),
        await api.get(`/admin/promotions/${id}/grants`, root.token),
      ]) {
        expect(r.status).toBe(404);
        expect(r.body.error).toBe('PromotionNotFound');
      }
    }
  });

  it('deletes a campaign once when two deletes race', async () => {
    const p = (await api.post('/admin/promotions', root.token, campaign())).body.promotion;
    const deleting = race((api) => [
      api.del(`/admin/promotions/${p.id}`, root.token),
      api.del(`/admin/promotions/${p.id}`, root.token),
    ]);
    await t
      .given()
      .when(deleting.send)
      .then(expectNewEvents(promotionStream(p.id), [{ type: 'PromotionDeleted', data: { promotionId: p.id } }]));
    expect(deleting.responses.map((r) => r.status).sort()).toEqual([200, 404]);
  });

  it('pages grants with a cursor and rejects a bad limit or cursor', async () => {
    const p = (await api.post('/admin/promotions', root.token, campaign())).body.promotion;
    expect((await api.get(`/admin/promotions/${p.id}/grants`, root.token)).body).toEqual({
      items: [],
      next_cursor: null,
      has_more: false,
    });
    const bad = await api.get(`/admin/promotions/${p.id}/grants?limit=101`, root.token);
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.details.fieldErrors)).toEqual(['limit']);
    const badCursor = await api.get(`/admin/promotions/${p.id}/grants?cursor=nonsense`, root.token);
    expect(badCursor.status).toBe(422);
    expect(Object.keys(badCursor.body.details.fieldErrors)).toEqual(['cursor']);
  });
});
