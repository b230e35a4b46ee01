import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin, signInClient, type SignedInDriver, type SignedInUser } from '../support/actors.js';
import { call, onlineDriver, orderBody } from '../support/orderFlows.js';
import { startTestService, type TestService } from '../support/testService.js';

/** A client's order, open for bids (real HTTP flow). */
const openOrder = async (t: TestService, client: SignedInUser): Promise<number> => {
  const r = await call(t).post('/orders', client.token, orderBody());
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.order.id;
};

/** A new online driver bids the published price: the client's inbox gets `offer_received`. */
const bid = async (t: TestService, orderId: number, driver?: SignedInDriver): Promise<number> => {
  const r = await call(t).post(`/orders/${orderId}/accept`, (driver ?? (await onlineDriver(t))).token, {});
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.offer.id;
};

const orderWithOffers = async (t: TestService, client: SignedInUser, offers: number) => {
  const orderId = await openOrder(t, client);
  const drivers = await Promise.all(Array.from({ length: offers }, () => onlineDriver(t)));
  const offerIds: number[] = [];
  for (const d of drivers) offerIds.push(await bid(t, orderId, d));
  return { orderId, offerIds };
};

describe('notifications inbox', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: { OFFICIAL_RATE_VES: '36.5' } });
  });
  afterAll(async () => {
    await t?.stop();
  });

  const get = (path: string, token: string) => t.request('GET', `/api/v1${path}`, { token });

  it('needs an app user: 401 without a token, 403 for an admin', async () => {
    for (const [method, path] of [
      ['GET', '/notifications'],
      ['GET', '/notifications/unread-count'],
      ['POST', '/notifications/read-all'],
      ['POST', `/notifications/${randomUUID()}/read`],
      ['DELETE', `/notifications/${randomUUID()}`],
    ]) {
      expect((await t.request(method, `/api/v1${path}`)).status, `${method} ${path}`).toBe(401);
    }
    const admin = await signInAdmin(t);
    expect((await get('/notifications', admin.token)).status).toBe(403);
  });

  it('starts empty', async () => {
    const client = await signInClient(t);
    expect((await get('/notifications', client.token)).body).toEqual({ items: [], next_cursor: null, has_more: false });
    expect((await get('/notifications/unread-count', client.token)).body).toEqual({ unread_count: 0 });
  });

  it('lists offer_received with {order_id, offer_id}, newest first, in cursor pages', async () => {
    const client = await signInClient(t);
    const { orderId, offerIds } = await orderWithOffers(t, client, 3);
    const newestFirst = [...offerIds].reverse();

    const seen: any[] = [];
    let cursor: string | null = null;
    const pages: number[] = [];
    do {
      const r: any = await get(
        `/notifications?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        client.token,
      );
      expect(r.status).toBe(200);
      pages.push(r.body.items.length);
      seen.push(...r.body.items);
      expect(r.body.has_more).toBe(r.body.next_cursor !== null);
      cursor = r.body.next_cursor;
    } while (cursor);
    expect(pages).toEqual([1, 1, 1]);
    expect(seen.map((n) => n.data)).toEqual(newestFirst.map((offer_id) => ({ order_id: orderId, offer_id })));
    for (const n of seen) {
      expect(n).toMatchObject({ type: 'offer_received', priority: 'high', read_at: null });
      expect(n.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(typeof n.title).toBe('string');
      expect(typeof n.body).toBe('string');
      expect(new Date(n.created_at).toISOString()).toBe(n.created_at);
    }
    expect((await get('/notifications', client.token)).body.items).toHaveLength(3);
    expect((await get('/notifications/unread-count', client.token)).body).toEqual({ unread_count: 3 });
  });

  it('rejects a bad limit, cursor or filter with 422 naming the field', async () => {
    const client = await signInClient(t);
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=2.5', 'limit'],
      ['cursor=not-a-cursor', 'cursor'],
      [`cursor=${Buffer.from('[1,"x"]').toString('base64url')}`, 'cursor'],
      ['filter=read', 'filter'],
      ['filter=all', 'filter'],
    ]) {
      const r = await get(`/notifications?${query}`, client.token);
      expect(r.status, query).toBe(422);
      expect(r.body.error).toBe('ValidationError');
      expect(Object.keys(r.body.details.fieldErrors), query).toEqual([field]);
    }
    expect((await get('/notifications?limit=100&filter=unread', client.token)).status).toBe(200);
  });

  it('marks one read idempotently, also under concurrent calls, and filters unread', async () => {
    const client = await signInClient(t);
    await orderWithOffers(t, client, 3);
    const [first, second] = (await get('/notifications', client.token)).body.items;

    const [a, b] = await Promise.all([
      t.request('POST', `/api/v1/notifications/${first.id}/read`, { token: client.token }),
      t.request('POST', `/api/v1/notifications/${first.id}/read`, { token: client.token }),
    ]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.read_at).toEqual(expect.any(String));
    expect(b.body).toEqual(a.body);
    const again = await t.request('POST', `/api/v1/notifications/${first.id}/read`, { token: client.token });
    expect(again.body).toEqual(a.body);

    expect((await get('/notifications/unread-count', client.token)).body).toEqual({ unread_count: 2 });
    const unread = (await get('/notifications?filter=unread', client.token)).body.items;
    expect(unread.map((n: any) => n.id)).toEqual([second.id, expect.any(String)]);
    expect(unread.map((n: any) => n.id)).not.toContain(first.id);
    const listed = (await get('/notifications', client.token)).body.items.find((n: any) => n.id === first.id);
    expect(listed.read_at).toBe(a.body.read_at);
  });

  it('answers 404 NotFound for an unknown id, a malformed id and another user’s notification', async () => {
    const [owner, stranger] = await Promise.all([signInClient(t), signInClient(t)]);
    await orderWithOffers(t, owner, 1);
    const [theirs] = (await get('/notifications', owner.token)).body.items;
    for (const id of [randomUUID(), 'not-a-uuid', theirs.id]) {
      const read = await t.request('POST', `/api/v1/notifications/${id}/read`, { token: stranger.token });
      expect(read.status, id).toBe(404);
      expect(read.body.error).toBe('NotFound');
      const del = await t.request('DELETE', `/api/v1/notifications/${id}`, { token: stranger.token });
      expect(del.status, id).toBe(404);
      expect(del.body.error).toBe('NotFound');
    }
    expect((await get('/notifications', owner.token)).body.items[0]).toEqual(theirs);
  });

  it('marks everything read with read-all, and later notifications arrive unread', async () => {
    const client = await signInClient(t);
    const { orderId } = await orderWithOffers(t, client, 3);
    const r = await t.request('POST', '/api/v1/notifications/read-all', { token: client.token });
    expect(r).toMatchObject({ status: 200, body: { ok: true } });
    expect((await get('/notifications/unread-count', client.token)).body).toEqual({ unread_count: 0 });
    expect((await get('/notifications?filter=unread', client.token)).body.items).toEqual([]);
    expect(
      (await get('/notifications', client.token)).body.items.every((n: any) => typeof n.read_at === 'string'),
    ).toBe(true);
    expect((await t.request('POST', '/api/v1/notifications/read-all', { token: client.token })).body).toEqual({
      ok: true,
    });

    await bid(t, orderId);
    expect((await get('/notifications/unread-count', client.token)).body).toEqual({ unread_count: 1 });
  });

  it('deletes one notification; a second delete is 404', async () => {
    const client = await signInClient(t);
    await orderWithOffers(t, client, 2);
    const [gone, kept] = (await get('/notifications', client.token)).body.items;
    const del = await t.request('DELETE', `/api/v1/notifications/${gone.id}`, { token: client.token });
    expect(del).toMatchObject({ status: 200, body: { ok: true } });
    expect((await get('/notifications', client.token)).body.items.map((n: any) => n.id)).toEqual([kept.id]);
    expect((await get('/notifications/unread-count', client.token)).body).toEqual({ unread_count: 1 });
    expect((await t.request('DELETE', `/api/v1/notifications/${gone.id}`, { token: client.token })).status).toBe(404);
    expect((await t.request('POST', `/api/v1/notifications/${gone.id}/read`, { token: client.token })).status).toBe(
      404,
    );
  });

  // Which event reaches which inbox (approval, an order's life, a cancellation):
  // projections/notifications/notificationsProjector.int.test.ts.

  it('documents every notification type in the OpenAPI document', async () => {
    const doc = (await t.request('GET', '/api/v1/openapi.json')).body;
    const types: string[] = doc.components.schemas.NotificationType.enum;
    expect(types).toEqual(
      expect.arrayContaining([
        'offer_received',
        'offer_accepted',
        'order_started',
        'driver_arrived',
        'order_delivered',
        'order_cancelled',
        'order_expired',
        'driver_approved',
      ]),
    );
    expect(doc.components.schemas.Notification.properties.type).toEqual({
      $ref: '#/components/schemas/NotificationType',
    });
    for (const path of [
      '/notifications',
      '/notifications/unread-count',
      '/notifications/read-all',
      '/notifications/{id}/read',
      '/notifications/{id}',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
  });
});

describe('notification retention', () => {
  let t: TestService;
  const clock = new ManualClock(new Date());
  beforeAll(async () => {
    t = await startTestService({ clock, env: { OFFICIAL_RATE_VES: '36.5', NOTIFICATION_RETENTION_DAYS: '30' } });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('hides entries older than the window, and the retention job purges them', async () => {
    const client = await signInClient(t);
    await orderWithOffers(t, client, 2);
    const before = (await t.request('GET', '/api/v1/notifications', { token: client.token })).body.items.map(
      (n: any) => n.id,
    );
    const entry = { id: before[0] };
    const start = clock.now();

    clock.advance(31 * 86_400_000);
    expect((await t.request('GET', '/api/v1/notifications', { token: client.token })).body.items).toEqual([]);
    expect((await t.request('GET', '/api/v1/notifications/unread-count', { token: client.token })).body).toEqual({
      unread_count: 0,
    });
    expect((await t.request('POST', `/api/v1/notifications/${entry.id}/read`, { token: client.token })).status).toBe(
      404,
    );

    await t.service.ctx.scheduler.tick();
    await t.service.ctx.settle(await t.service.ctx.store.headPosition());
    // Back inside the window: had the job only hidden them, they would show again. (The tick may also run
    // other areas' timers, e.g. the order's expiry, whose new notifications are not what this test is about.)
    clock.set(start);
    const after = (await t.request('GET', '/api/v1/notifications', { token: client.token })).body.items.map(
      (n: any) => n.id,
    );
    expect(after.filter((id: string) => before.includes(id))).toEqual([]);
  });
});
