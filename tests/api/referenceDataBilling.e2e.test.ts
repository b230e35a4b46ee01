import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingSnapshotFor } from '../../stores/billing/billingQueries.js';
import { signInAdmin, signInClient, signInDriver } from '../support/actors.js';
import { startTestService, type TestService } from '../support/testService.js';

const profile = (over: Record<string, unknown> = {}) => ({
  entityType: 'V',
  idNumber: '12345678',
  name: 'Ana Pérez',
  address: 'Av. Francisco de Miranda, Torre Delta, Caracas',
  phone: '+584141234567',
  ...over,
});

describe('billing profiles', () => {
  let t: TestService;
  let client: { token: string; id: number };
  const newClient = async () => {
    const c = await signInClient(t);
    return { token: c.token, id: c.user.id };
  };
  const create = (token: string, body: Record<string, unknown>) =>
    t.request('POST', '/api/v1/billing-profiles', { token, body });
  const list = async (token: string) =>
    (await t.request('GET', '/api/v1/billing-profiles', { token })).body.profiles as {
      id: number;
      is_default: boolean;
    }[];
  const defaults = async (token: string) => (await list(token)).filter((p) => p.is_default).map((p) => p.id);

  beforeAll(async () => {
    t = await startTestService();
    client = await newClient();
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('creates the first profile as the default whatever isDefault says, normalising the document', async () => {
    const r = await create(client.token, profile({ entityType: 'v', idNumber: 'V-12.345.678', isDefault: false }));
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      profile: {
        id: expect.any(Number),
        entity_type: 'V',
        id_number: '12345678',
        name: 'Ana Pérez',
        address: 'Av. Francisco de Miranda, Torre Delta, Caracas',
        phone: '+584141234567',
        is_default: true,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    expect(await list(client.token)).toHaveLength(1);
  });

  it('moves the default flag on create and on change; the default is listed first', async () => {
    const c = await newClient();
    const first = (await create(c.token, profile())).body.profile.id;
    const second = (await create(c.token, profile({ entityType: 'J', idNumber: 'J-40123456-7', name: 'Pérez CA' })))
      .body.profile;
    expect(second).toMatchObject({ is_default: false, id_number: '401234567' });
    expect(await defaults(c.token)).toEqual([first]);

    const third = (await create(c.token, profile({ entityType: 'P', idNumber: 'ab123456', isDefault: true }))).body
      .profile;
    expect(third).toMatchObject({ is_default: true, id_number: 'AB123456' });
    expect(await defaults(c.token)).toEqual([third.id]);
    expect((await list(c.token))[0].id).toBe(third.id);

    const moved = await t.request('PATCH', `/api/v1/billing-profiles/${second.id}`, {
      token: c.token,
      body: { isDefault: true, name: 'Pérez y Asociados CA' },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.profile).toMatchObject({
      id: second.id,
      is_default: true,
      name: 'Pérez y Asociados CA',
      entity_type: 'J',
    });
    expect(await defaults(c.token)).toEqual([second.id]);
  });

  it(
    'refuses to unset the default flag directly (422 on ' + 'isDefault); false on another profile changes nothing',
    async () => {
      const c = await newClient();
      const a = (await create(c.token, profile())).body.profile.id;
      const b = (await create(c.token, profile())).body.profile.id;
      const r = await t.request('PATCH', `/api/v1/billing-profiles/${a}`, {
        token: c.token,
        body: { isDefault: false },
      });
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.details.fieldErrors)).toEqual(['isDefault']);
      const other = await t.request('PATCH', `/api/v1/billing-profiles/${b}`, {
        token: c.token,
        body: { isDefault: false },
      });
      expect(other.status).toBe(200);
      expect(await defaults(c.token)).toEqual([a]);
    },
  );

  it('promotes the oldest remaining profile when the default is deleted, and none when the last goes', async () => {
    const c = await newClient();
    const a = (await create(c.token, profile())).body.profile.id;
    const b = (await create(c.token, profile())).body.profile.id;
    const cc = (await create(c.token, profile({ isDefault: true }))).body.profile.id;
    const del = await t.request('DELETE', `/api/v1/billing-profiles/${cc}`, { token: c.token });
    expect(del.status).toBe(204);
    expect(await defaults(c.token)).toEqual([a]);
    expect((await t.request('DELETE', `/api/v1/billing-profiles/${b}`, { token: c.token })).status).toBe(204);
    expect(await defaults(c.token)).toEqual([a]);
    expect((await t.request('DELETE', `/api/v1/billing-profiles/${a}`, { token: c.token })).status).toBe(204);
    expect(await list(c.token)).toEqual([]);
    expect((await t.request('DELETE', `/api/v1/billing-profiles/${a}`, { token: c.token })).status).toBe(404);
  });

  it('keeps exactly one default when one client creates and switches profiles concurrently', async () => {
    const c = await newClient();
    const created = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => create(c.token, profile({ name: `Perfil ${i}`, isDefault: i % 2 === 0 }))),
    );
    expect(created.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(await defaults(c.token)).toHaveLength(1);
    const ids = created.map((r) => r.body.profile.id);
    const switched = await Promise.all(
      ids.map((id) =>
        t.request('PATCH', `/api/v1/billing-profiles/${id}`, { token: c.token, body: { isDefault: true } }),
      ),
    );
    expect(switched.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await defaults(c.token)).toHaveLength(1);
    await Promise.all(
      ids.slice(0, 4).map((id) => t.request('DELETE', `/api/v1/billing-profiles/${id}`, { token: c.token })),
    );
    expect(await defaults(c.token)).toEqual([ids[4]]);
  });

  it("answers another client's profile with 404 on every route and leaves it unchanged", async () => {
    const owner = await newClient();
    const id = (await create(owner.token, profile())).body.profile.id;
    const stranger = await newClient();
    const patch = await t.request('PATCH', `/api/v1/billing-profiles/${id}`, {
      token: stranger.token,
      body: { name: 'Robado' },
    });
    expect(patch.status).toBe(404);
    expect(patch.body.error).toBe('NotFound');
    expect((await t.request('DELETE', `/api/v1/billing-profiles/${id}`, { token: stranger.token })).status).toBe(404);
    expect(
      (await t.request('PATCH', '/api/v1/billing-profiles/999999', { token: stranger.token, body: { name: 'Nadie' } }))
        .status,
    ).toBe(404);
    expect(await list(stranger.token)).toEqual([]);
    expect((await list(owner.token))[0]).toMatchObject({ id, name: 'Ana Pérez' });
  });

  it('is for clients only: 401 without a token, 403 for drivers and admins', async () => {
    const driver = (await signInDriver(t, { approved: false })).token;
    const admin = (await signInAdmin(t)).token;
    expect((await t.request('GET', '/api/v1/billing-profiles')).status).toBe(401);
    for (const token of [driver, admin]) {
      expect((await t.request('GET', '/api/v1/billing-profiles', { token })).status).toBe(403);
      expect((await create(token, profile())).status).toBe(403);
      expect((await t.request('PATCH', '/api/v1/billing-profiles/1', { token, body: { name: 'x y' } })).status).toBe(
        403,
      );
      expect((await t.request('DELETE', '/api/v1/billing-profiles/1', { token })).status).toBe(403);
    }
  });

  const badFields: [string, Record<string, unknown>][] = [
    ['entityType', { entityType: 'X' }],
    ['entityType', { entityType: 3 }],
    ['idNumber', { idNumber: '123' }],
    ['idNumber', { idNumber: '12345678901234567' }],
    ['idNumber', { idNumber: 'ABC12345' }],
    ['idNumber', { idNumber: '12#45678' }],
    ['name', { name: 'A' }],
    ['name', { name: 'x'.repeat(151) }],
    ['address', { address: 'ab' }],
    ['address', { address: 'x'.repeat(281) }],
    ['phone', { phone: '04141234567' }],
    ['phone', { phone: '+58414' }],
    ['phone', { phone: '+5841412345678901' }],
    ['isDefault', { isDefault: 'yes' }],
  ];

  it.each(badFields)('refuses a bad %s with 422 naming it, on create and on change (%j)', async (field, over) => {
    const before = await list(client.token);
    const created = await create(client.token, profile(over));
    expect(created.status).toBe(422);
    expect(Object.keys(created.body.details.fieldErrors)).toEqual([field]);
    const patchBody =
      field === 'entityType' || field === 'idNumber' ? { entityType: 'V', idNumber: '12345678', ...over } : over;
    const patched = await t.request('PATCH', `/api/v1/billing-profiles/${before[0].id}`, {
      token: client.token,
      body: patchBody,
    });
    expect(patched.status).toBe(422);
    expect(Object.keys(patched.body.details.fieldErrors)).toEqual([field]);
    expect(await list(client.token)).toEqual(before);
  });

  it.each(['entityType', 'idNumber', 'name', 'address', 'phone'])('requires %s on create', async (field) => {
    const r = await create(client.token, profile({ [field]: undefined }));
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.details.fieldErrors)).toEqual([field]);
  });

  it('changes the document type and number together only', async () => {
    const id = (await list(client.token))[0].id;
    const alone = await t.request('PATCH', `/api/v1/billing-profiles/${id}`, {
      token: client.token,
      body: { idNumber: '87654321' },
    });
    expect(alone.status).toBe(422);
    expect(Object.keys(alone.body.details.fieldErrors)).toEqual(['entityType']);
    const both = await t.request('PATCH', `/api/v1/billing-profiles/${id}`, {
      token: client.token,
      body: { entityType: 'E', idNumber: 'E-87654321' },
    });
    expect(both.status).toBe(200);
    expect(both.body.profile).toMatchObject({ entity_type: 'E', id_number: '87654321' });
  });

  it('answers a malformed id with 422 naming id', async () => {
    for (const id of ['abc', '-1', '1.5']) {
      const r = await t.request('DELETE', `/api/v1/billing-profiles/${id}`, { token: client.token });
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.details.fieldErrors)).toEqual(['id']);
    }
  });

  describe('billingSnapshotFor (the order snapshot)', () => {
    const fieldsOf = async (fn: () => Promise<unknown>) => {
      try {
        await fn();
      } catch (err) {
        return (err as { code: string; details: { fieldErrors: Record<string, string[]> } }).details.fieldErrors;
      }
      throw new Error('expected a validation error');
    };

    it('uses the default when omitted, a given own profile, and nothing for null', async () => {
      const db = t.service.ctx.db;
      const c = await newClient();
      const a = (await create(c.token, profile())).body.profile.id;
      const b = (
        await create(
          c.token,
          profile({
            entityType: 'J',
            idNumber: '401234567',
            name: 'Pérez CA',
            address: 'Calle 1, Valencia',
            phone: '+582129876543',
          }),
        )
      ).body.profile.id;
      expect(a).not.toBe(b);
      for (const required of [false, true]) {
        expect(await billingSnapshotFor(db, c.id, undefined, { required })).toEqual({
          entity_type: 'V',
          id_number: '12345678',
          name: 'Ana Pérez',
          address: 'Av. Francisco de Miranda, Torre Delta, Caracas',
          phone: '+584141234567',
        });
        expect(await billingSnapshotFor(db, c.id, b, { required })).toEqual({
          entity_type: 'J',
          id_number: '401234567',
          name: 'Pérez CA',
          address: 'Calle 1, Valencia',
          phone: '+582129876543',
        });
      }
      expect(await billingSnapshotFor(db, c.id, null, { required: false })).toBeNull();
      expect(Object.keys(await fieldsOf(() => billingSnapshotFor(db, c.id, null, { required: true })))).toEqual([
        'billingProfileId',
      ]);
    });

    it('refuses an unknown or foreign profile with 422 on billingProfileId', async () => {
      const db = t.service.ctx.db;
      const owner = await newClient();
      const id = (await create(owner.token, profile())).body.profile.id;
      const stranger = await newClient();
      for (const bad of [id, 999_999, 0, -1, 1.5, 2 ** 60]) {
        expect(
          Object.keys(await fieldsOf(() => billingSnapshotFor(db, stranger.id, bad, { required: false }))),
        ).toEqual(['billingProfileId']);
      }
    });

    it('gives null for a client without profiles, unless billing is required', async () => {
      const db = t.service.ctx.db;
      const c = await newClient();
      expect(await billingSnapshotFor(db, c.id, undefined, { required: false })).toBeNull();
      expect(Object.keys(await fieldsOf(() => billingSnapshotFor(db, c.id, undefined, { required: true })))).toEqual([
        'billingProfileId',
      ]);
    });
  });
});
