import { randomBytes, randomInt } from 'node:crypto';
import { connect as tcpConnect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { signInAdmin, signInClient, signInDriver, type SignedInDriver, type SignedInUser } from '../support/actors.js';
import { call, onlineDriver, orderBody } from '../support/orderFlows.js';
import { startInstanceBeside, startTestService, type TestService } from '../support/testService.js';
import { openSocket } from '../support/wsClient.js';

const open = openSocket;

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => ({ status: 101, body: null }),
    (e: { status: number; body: unknown }) => ({ status: e.status, body: e.body }),
  );

/** Profile, documents and an admin's approval over HTTP: the driver's inbox gets `driver_approved`. */
const approve = async (t: TestService, driver: SignedInDriver, adminToken: string) => {
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const r = await t.request(method, `/api/v1${path}`, { token, body });
    expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
  };
  await call('PUT', '/driver/profile', driver.token, {
    plate: `WS${driver.driverId}${randomInt(100, 999)}`,
    capacityLiters: 8000,
    cityId: 1,
  });
  for (const type of ['ID_FRONT', 'LICENSE'])
    await call('POST', '/driver/documents', driver.token, { type, expiresAt: '2099-12-31' });
  await call('POST', `/admin/drivers/${driver.driverId}/approve`, adminToken);
};

/** A client's order and a nearby driver's bid on it, over HTTP: the client's inbox gets `offer_received`. */
const orderWithOffer = async (t: TestService, client: SignedInUser) => {
  const api = call(t);
  const driver = await onlineDriver(t);
  const created = await api.post('/orders', client.token, orderBody());
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const offer = await api.post(`/orders/${created.body.order.id}/accept`, driver.token, {});
  expect(offer.status, JSON.stringify(offer.body)).toBe(201);
  return { orderId: created.body.order.id as number, offerId: offer.body.offer.id as number };
};

const ENV = { OFFICIAL_RATE_VES: '36.5' };

describe('websocket gateway /ws', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: ENV });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('refuses a socket without a valid token with HTTP 401, and other paths with 404', async () => {
    expect(await refusal(open(t))).toMatchObject({ status: 401, body: { error: 'Unauthorized' } });
    expect(await refusal(open(t, { token: 'not-a-token' }))).toMatchObject({
      status: 401,
      body: { error: 'Unauthorized' },
    });
    expect(await refusal(open(t, { token: 'not-a-token', via: 'query' }))).toMatchObject({ status: 401 });
    const client = await signInClient(t);
    expect(await refusal(open(t, { token: client.token, path: '/elsewhere' }))).toMatchObject({ status: 404 });
  });

  it(
    'authenticates by header or ?token= and lets a user ' + 'subscribe to their own notifications channel only',
    async () => {
      const [a, b] = await Promise.all([signInClient(t), signInClient(t)]);
      const viaHeader = await open(t, { token: a.token });
      const viaQuery = await open(t, { token: a.token, via: 'query' });
      try {
        expect(await viaHeader.subscribe(`notifications.${a.user.id}`)).toEqual({
          type: 'subscribed',
          channel: `notifications.${a.user.id}`,
        });
        expect(await viaQuery.subscribe(`notifications.${a.user.id}`)).toEqual({
          type: 'subscribed',
          channel: `notifications.${a.user.id}`,
        });
        expect(await viaHeader.subscribe(`notifications.${b.user.id}`)).toEqual({
          type: 'error',
          channel: `notifications.${b.user.id}`,
          error: 'Forbidden',
        });
        for (const channel of ['notifications.>', 'notifications.*', 'nothing.here', 'notifications']) {
          expect(await viaHeader.subscribe(channel)).toEqual({ type: 'error', channel, error: 'UnknownChannel' });
        }
        // A room the caller is no member of (or that does not exist) is refused, not unknown: chat owns the prefix.
        expect(await viaHeader.subscribe('chat.rooms.999999')).toEqual({
          type: 'error',
          channel: 'chat.rooms.999999',
          error: 'Forbidden',
        });
        viaHeader.send({ type: 'unsubscribe', channel: `notifications.${a.user.id}` });
        expect(await viaHeader.next((f) => f.type === 'unsubscribed')).toEqual({
          type: 'unsubscribed',
          channel: `notifications.${a.user.id}`,
        });
      } finally {
        await Promise.all([viaHeader.close(), viaQuery.close()]);
      }
    },
  );

  it('answers bad frames with an error and ping with pong, keeping the socket open', async () => {
    const client = await signInClient(t);
    const s = await open(t, { token: client.token });
    try {
      s.send('{not json');
      expect(await s.next((f) => f.type === 'error')).toEqual({ type: 'error', error: 'BadMessage' });
      s.send({ type: 'dance' });
      expect(await s.next((f) => f.error === 'UnknownMessageType')).toEqual({
        type: 'error',
        error: 'UnknownMessageType',
      });
      s.send({ type: 'ping' });
      expect(await s.next((f) => f.type === 'pong')).toEqual({ type: 'pong' });
      expect(s.ws.readyState).toBe(WebSocket.OPEN);
    } finally {
      await s.close();
    }
  });

  it('refuses an admin the channel of the app user with the same id', async () => {
    const admin = await signInAdmin(t);
    const s = await open(t, { token: admin.token });
    try {
      expect(await s.subscribe(`notifications.${admin.admin.id}`)).toMatchObject({ type: 'error', error: 'Forbidden' });
    } finally {
      await s.close();
    }
  });

  it('delivers an offer notification to the client on notifications.<userId>', async () => {
    const client = await signInClient(t);
    const s = await open(t, { token: client.token });
    try {
      await s.subscribe(`notifications.${client.user.id}`);
      const { orderId, offerId } = await orderWithOffer(t, client);
      const frame = await s.next((f) => f.type === 'message' && f.data?.type === 'offer_received');
      expect(frame).toMatchObject({
        type: 'message',
        channel: `notifications.${client.user.id}`,
        event: 'notification.created',
        data: { type: 'offer_received', data: { order_id: orderId, offer_id: offerId }, read_at: null },
      });
      const inbox = await t.request('GET', '/api/v1/notifications', { token: client.token });
      expect(inbox.body.items[0]).toEqual(frame.data);
    } finally {
      await s.close();
    }
  });

  it('delivers the driver_approved notification of a real approval, and nothing of another user', async () => {
    const [driver, other, admin] = await Promise.all([
      signInDriver(t, { approved: false }),
      signInClient(t),
      signInAdmin(t),
    ]);
    const mine = await open(t, { token: driver.token });
    const theirs = await open(t, { token: other.token });
    try {
      await mine.subscribe(`notifications.${driver.user.id}`);
      await theirs.subscribe(`notifications.${other.user.id}`);
      await approve(t, driver, admin.token);
      const frame = await mine.next((f) => f.type === 'message');
      expect(frame).toMatchObject({ event: 'notification.created', data: { type: 'driver_approved', read_at: null } });
      // The same bus carries the other user's channel: a message for them proves ours did not leak there.
      await t.service.ctx.bus.publish(`notifications.${other.user.id}`, { event: 'probe', data: { n: 1 } });
      expect(await theirs.next((f) => f.type === 'message')).toEqual({
        type: 'message',
        channel: `notifications.${other.user.id}`,
        event: 'probe',
        data: { n: 1 },
      });
      expect(theirs.frames.filter((f) => f.type === 'message')).toHaveLength(1);
    } finally {
      await Promise.all([mine.close(), theirs.close()]);
    }
  });

  it('drops a peer that stops answering pings', async () => {
    const hb = await startTestService({ env: { WS_HEARTBEAT_MS: '1000' } });
    try {
      const client = await signInClient(hb);
      const raw = tcpConnect(hb.port, '127.0.0.1');
      const key = randomBytes(16).toString('base64');
      raw.write(
        `GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ` +
          `${key}\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer ${client.token}\r\n\r\n`,
      );
      let received = '';
      raw.on('data', (c) => (received += c.toString('latin1')));
      // The raw peer never answers a ping: the gateway ends the connection on its own.
      await new Promise<void>((resolve) => raw.once('close', () => resolve()));
      expect(received).toMatch(/^HTTP\/1.1 101/);
    } finally {
      await hb.stop();
    }
  });
});

describe.runIf(process.env.NATS_URL && process.env.DATABASE_URL)(
  'websocket gateway across instances (real NATS)',
  () => {
    let a: Awaited<ReturnType<typeof startTestService>>;
    let b: TestService;
    beforeAll(async () => {
      a = await startTestService({ env: ENV });
      // B serves HTTP and websockets only: every projector runs on A, so whatever B's sockets hear came over NATS.
      b = await startInstanceBeside(a, { env: ENV, roles: ['api', 'gateway'] });
    });
    afterAll(async () => {
      await b?.stop();
      await a?.stop();
    });

    it('a socket on instance B receives what is published through instance A', async () => {
      const client = await signInClient(a);
      const s = await open(b, { token: client.token });
      try {
        await s.subscribe(`notifications.${client.user.id}`);
        await a.service.ctx.bus.publish(`notifications.${client.user.id}`, { event: 'hello', data: { from: 'A' } });
        expect(await s.next((f) => f.type === 'message')).toEqual({
          type: 'message',
          channel: `notifications.${client.user.id}`,
          event: 'hello',
          data: { from: 'A' },
        });
      } finally {
        await s.close();
      }
    });

    it('a socket on instance B receives a notification projected on instance A', async () => {
      const client = await signInClient(a);
      const s = await open(b, { token: client.token });
      try {
        await s.subscribe(`notifications.${client.user.id}`);
        const { offerId } = await orderWithOffer(a, client);
        expect(await s.next((f) => f.data?.type === 'offer_received')).toMatchObject({
          event: 'notification.created',
          data: { data: { offer_id: offerId } },
        });
      } finally {
        await s.close();
      }
    });
  },
);
