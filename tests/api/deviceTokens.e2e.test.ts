import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../infra/clock.js';
import { startFcmStandIn } from '../support/providerStandIns/fcm.js';
import { signInAdmin, signInClient, type SignedInUser } from '../support/actors.js';
import { call, onlineDriver, orderBody } from '../support/orderFlows.js';
import { startTestService, type TestService } from '../support/testService.js';

/** An open order of this client (HTTP); each `offer()` is a new nearby driver's bid, which notifies the client. */
const openOrder = async (t: TestService, client: SignedInUser) => {
  const api = call(t);
  const created = await api.post('/orders', client.token, orderBody());
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const orderId: number = created.body.order.id;
  return {
    orderId,
    async offer(): Promise<number> {
      const driver = await onlineDriver(t);
      const r = await api.post(`/orders/${orderId}/accept`, driver.token, {});
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.offer.id;
    },
  };
};

const ENV = { OFFICIAL_RATE_VES: '36.5' };

describe('device tokens', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: ENV });
  });
  afterAll(async () => {
    await t?.stop();
  });

  const register = (token: string | undefined, body: unknown) =>
    t.request('POST', '/api/v1/device-tokens', { token, body });
  const unregister = (token: string | undefined, body: unknown) =>
    t.request('DELETE', '/api/v1/device-tokens', { token, body });

  it('needs an app user: 401 without a token, 403 for an admin', async () => {
    expect((await register(undefined, { token: 'x', platform: 'ios' })).status).toBe(401);
    expect((await unregister(undefined, { token: 'x' })).status).toBe(401);
    const admin = await signInAdmin(t);
    expect((await register(admin.token, { token: 'x', platform: 'ios' })).status).toBe(403);
  });

  it('registers a token with 201 {device_token {id, platform}}, idempotently', async () => {
    const client = await signInClient(t);
    const token = `fcm-${randomInt(0, 1e9)}`;
    const first = await register(client.token, { token, platform: 'android' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ device_token: { id: expect.any(Number), platform: 'android' } });
    const [again, concurrent] = await Promise.all([
      register(client.token, { token, platform: 'android' }),
      register(client.token, { token, platform: 'android' }),
    ]);
    expect(again).toMatchObject({ status: 201, body: first.body });
    expect(concurrent).toMatchObject({ status: 201, body: first.body });
    const other = await register(client.token, { token: `${token}-2`, platform: 'ios' });
    expect(other.body.device_token.id).not.toBe(first.body.device_token.id);
    expect(other.body.device_token.platform).toBe('ios');
  });

  it('rejects bad bodies with 422 naming the field', async () => {
    const client = await signInClient(t);
    for (const [body, field] of [
      [{ platform: 'ios' }, 'token'],
      [{ token: '', platform: 'ios' }, 'token'],
      [{ token: 'x'.repeat(513), platform: 'ios' }, 'token'],
      [{ token: 42, platform: 'ios' }, 'token'],
      [{ token: 'abc' }, 'platform'],
      [{ token: 'abc', platform: 'web' }, 'platform'],
    ] as const) {
      const r = await register(client.token, body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.error).toBe('ValidationError');
      expect(Object.keys(r.body.details.fieldErrors)).toEqual([field]);
    }
    expect((await register(client.token, { token: 'x'.repeat(512), platform: 'ios' })).status).toBe(201);
    const missing = await unregister(client.token, {});
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.details.fieldErrors)).toEqual(['token']);
  });

  it('deletes a token idempotently, also an unknown one', async () => {
    const client = await signInClient(t);
    const token = `apns-${randomInt(0, 1e9)}`;
    await register(client.token, { token, platform: 'ios' });
    expect(await unregister(client.token, { token })).toMatchObject({ status: 200, body: { ok: true } });
    expect(await unregister(client.token, { token })).toMatchObject({ status: 200, body: { ok: true } });
    expect(await unregister(client.token, { token: 'never-registered' })).toMatchObject({
      status: 200,
      body: { ok: true },
    });
  });

  it('pushes a new notification to the user’s devices through the simulator (GET /dev/outbox)', async () => {
    const client = await signInClient(t);
    const device = `fcm-${randomInt(0, 1e9)}`;
    await register(client.token, { token: device, platform: 'android' });
    const order = await openOrder(t, client);
    const offerId = await order.offer();
    const pushed = await vi.waitFor(
      async () => {
        const r = await t.request('GET', `/api/v1/dev/outbox?to=${client.user.id}`);
        const push = r.body.messages.find((m: any) => m.channel === 'push');
        if (!push) throw new Error('no push yet');
        return push;
      },
      { timeout: 10_000, interval: 50 },
    );
    const [notification] = (await t.request('GET', '/api/v1/notifications', { token: client.token })).body.items;
    expect(pushed).toMatchObject({
      channel: 'push',
      to: String(client.user.id),
      subject: notification.title,
      body: notification.body,
      data: {
        notification_id: notification.id,
        type: 'offer_received',
        token: device,
        platform: 'android',
        data: { order_id: order.orderId, offer_id: offerId },
      },
    });
  });
});

describe('push through an FCM-style provider', () => {
  let provider: Server;
  let t: TestService;
  const requests: { authorization?: string; message: any }[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  beforeAll(async () => {
    provider = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const { message } = JSON.parse(raw);
        const dead = String(message.token).startsWith('dead');
        res.writeHead(dead ? 404 : 200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify(
            dead
              ? { error: { code: 404, status: 'NOT_FOUND', details: [{ errorCode: 'UNREGISTERED' }] } }
              : { name: 'messages/1' },
          ),
        );
        requests.push({ authorization: req.headers.authorization, message });
        for (const w of [...waiters]) {
          if (requests.length < w.count) continue;
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      });
    });
    await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1/projects/test/messages:send`;
    t = await startTestService({ env: { ...ENV, PUSH_PROVIDER_URL: url, PUSH_PROVIDER_KEY: 'provider-key' } });
  });
  afterAll(async () => {
    await t?.stop();
    await new Promise<void>((r) => provider?.close(() => r()));
  });

  const received = (count: number) =>
    requests.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }));

  it('sends to every device and forgets a token the provider reports unregistered', async () => {
    const client = await signInClient(t);
    const dead = `dead-${randomInt(0, 1e9)}`;
    const live = `live-${randomInt(0, 1e9)}`;
    await t.request('POST', '/api/v1/device-tokens', { token: client.token, body: { token: dead, platform: 'ios' } });
    await t.request('POST', '/api/v1/device-tokens', {
      token: client.token,
      body: { token: live, platform: 'android' },
    });
    const order = await openOrder(t, client);

    const firstOffer = await order.offer();
    await received(2);
    // Devices are tried in registration order: the dead one answered
    // 404 and was forgotten before the live one was sent to.
    expect(requests.map((r) => r.message.token)).toEqual([dead, live]);
    expect(requests[1]).toMatchObject({
      authorization: 'Bearer provider-key',
      message: {
        token: live,
        notification: { title: expect.any(String), body: expect.any(String) },
        data: { type: 'offer_received', order_id: String(order.orderId), offer_id: String(firstOffer) },
      },
    });

    const secondOffer = await order.offer();
    await received(3);
    expect(requests.slice(2).map((r) => [r.message.token, r.message.data.offer_id])).toEqual([
      [live, String(secondOffer)],
    ]);
  });
});

describe('push through FCM HTTP v1 with a service-account key file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fcm-e2e-'));
  let fcm: Awaited<ReturnType<typeof startFcmStandIn>>;
  let t: TestService;
  beforeAll(async () => {
    fcm = await startFcmStandIn(systemClock);
    const { path } = await fcm.writeServiceAccount(dir, 'water-e2e');
    t = await startTestService({ env: { ...ENV, GOOGLE_APPLICATION_CREDENTIALS: path, FCM_API_URL: fcm.url } });
  });
  afterAll(async () => {
    await t?.stop();
    await fcm?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("sends with the service account's access token and forgets a device FCM calls UNREGISTERED", async () => {
    const client = await signInClient(t);
    const dead = `dead-${randomInt(0, 1e9)}`;
    const live = `live-${randomInt(0, 1e9)}`;
    fcm.unregistered.add(dead);
    for (const [token, platform] of [
      [dead, 'ios'],
      [live, 'android'],
    ])
      await t.request('POST', '/api/v1/device-tokens', { token: client.token, body: { token, platform } });
    const order = await openOrder(t, client);

    const firstOffer = await order.offer();
    await vi.waitFor(() => expect(fcm.sent).toHaveLength(1), { timeout: 10_000 });
    expect(fcm.refused).toEqual([dead]);
    expect(fcm.sent[0]).toMatchObject({
      projectId: 'water-e2e',
      message: { token: live, data: { type: 'offer_received', offer_id: String(firstOffer) } },
    });

    const secondOffer = await order.offer();
    await vi.waitFor(() => expect(fcm.sent).toHaveLength(2), { timeout: 10_000 });
    expect(fcm.sent[1].message).toMatchObject({ token: live, data: { offer_id: String(secondOffer) } });
    expect(fcm.refused).toEqual([dead]);
    expect(fcm.exchanges).toHaveLength(1);
  });
});
