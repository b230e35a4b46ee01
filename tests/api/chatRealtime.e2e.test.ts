import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAdmin, signInClient } from '../support/actors.js';
import { call, confirmedOrder, onlineDriver, type Flow } from '../support/orderFlows.js';
import { startInstanceBeside, startTestService, type TestService } from '../support/testService.js';
import { openSocket } from '../support/wsClient.js';

/** Chat over the websocket gateway: members hear `message.created` (and support room claims) on chat.rooms.<id>. */

const open = (t: TestService, token: string) => openSocket(t, { token });

const ENV = { OFFICIAL_RATE_VES: '36.5' };

const roomOf = async (t: TestService, f: Flow, token: string, type: string): Promise<number> => {
  const r = await call(t).post(`/orders/${f.orderId}/chat-rooms`, token, { type });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.room.id;
};

describe('chat over the websocket gateway', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: ENV });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('delivers a message sent over REST to the other member’s socket as message.created', async () => {
    const f = await confirmedOrder(t);
    const roomId = await roomOf(t, f, f.client.token, 'ORDER_CLIENT_DRIVER');
    const channel = `chat.rooms.${roomId}`;
    const [driverSocket, clientSocket] = await Promise.all([open(t, f.driver.token), open(t, f.client.token)]);
    try {
      expect(await driverSocket.subscribe(channel)).toEqual({ type: 'subscribed', channel });
      expect(await clientSocket.subscribe(channel)).toEqual({ type: 'subscribed', channel });
      const sent = await call(t).post(`/chat-rooms/${roomId}/messages`, f.client.token, {
        content: 'Estoy en la puerta',
      });
      expect(sent.status).toBe(201);
      const frame = await driverSocket.next((x) => x.type === 'message');
      expect(frame).toEqual({ type: 'message', channel, event: 'message.created', data: sent.body.message });
      expect(await clientSocket.next((x) => x.type === 'message')).toEqual(frame);
    } finally {
      await Promise.all([driverSocket.close(), clientSocket.close()]);
    }
  });

  it('refuses the subscription of non-members, and of unknown rooms', async () => {
    const f = await confirmedOrder(t);
    const cd = await roomOf(t, f, f.client.token, 'ORDER_CLIENT_DRIVER');
    const clientSupport = await roomOf(t, f, f.client.token, 'ORDER_ADMIN_CLIENT_SUPPORT');
    const [stranger, otherDriver, admin] = await Promise.all([signInClient(t), onlineDriver(t), signInAdmin(t)]);
    const sockets = await Promise.all([
      open(t, stranger.token),
      open(t, otherDriver.token),
      open(t, admin.token),
      open(t, f.driver.token),
    ]);
    const [strangerS, otherDriverS, adminS, driverS] = sockets;
    try {
      const forbidden = (channel: string) => ({ type: 'error', channel, error: 'Forbidden' });
      for (const s of [strangerS, otherDriverS, adminS])
        expect(await s.subscribe(`chat.rooms.${cd}`)).toEqual(forbidden(`chat.rooms.${cd}`));
      // The client's support room is the client's and the back office's, not the driver's.
      expect(await driverS.subscribe(`chat.rooms.${clientSupport}`)).toEqual(forbidden(`chat.rooms.${clientSupport}`));
      expect(await driverS.subscribe('chat.rooms.999999')).toEqual(forbidden('chat.rooms.999999'));
      expect(await driverS.subscribe('chat.rooms.abc')).toEqual(forbidden('chat.rooms.abc'));
      // A refused socket hears nothing of the room: the member's socket hears the message, the others do not.
      expect(await driverS.subscribe(`chat.rooms.${cd}`)).toMatchObject({ type: 'subscribed' });
      await call(t).post(`/chat-rooms/${cd}/messages`, f.client.token, { content: 'privado' });
      await driverS.next((x) => x.type === 'message');
      for (const s of [strangerS, otherDriverS, adminS])
        expect(s.frames.filter((x) => x.type === 'message')).toEqual([]);
    } finally {
      await Promise.all(sockets.map((s) => s.close()));
    }
  });

  it(
    'lets admins listen on a pooled support room, then ' + 'only the assigned admin; claims and messages arrive',
    async () => {
      const f = await confirmedOrder(t);
      const roomId = await roomOf(t, f, f.client.token, 'ORDER_ADMIN_CLIENT_SUPPORT');
      const channel = `chat.rooms.${roomId}`;
      const [alice, bob] = [await signInAdmin(t, { superAdmin: false }), await signInAdmin(t, { superAdmin: false })];
      const [aliceS, clientS] = await Promise.all([open(t, alice.token), open(t, f.client.token)]);
      try {
        expect(await aliceS.subscribe(channel)).toEqual({ type: 'subscribed', channel });
        expect(await clientS.subscribe(channel)).toEqual({ type: 'subscribed', channel });
        expect(
          (await call(t).post(`/admin/chat-rooms/${roomId}/messages`, alice.token, { content: 'Hola, soy Alice' }))
            .status,
        ).toBe(201);
        expect(await clientS.next((x) => x.event === 'room.claimed')).toMatchObject({
          data: {
            room_id: roomId,
            order_id: f.orderId,
            status: { state: 'claimed', assigned_admin: { id: alice.admin.id } },
          },
        });
        expect(await clientS.next((x) => x.event === 'message.created')).toMatchObject({
          data: { sender_role: 'ADMIN', content: 'Hola, soy Alice' },
        });
        const bobS = await open(t, bob.token);
        try {
          expect(await bobS.subscribe(channel)).toEqual({ type: 'error', channel, error: 'Forbidden' });
        } finally {
          await bobS.close();
        }
        expect((await call(t).post(`/admin/chat-rooms/${roomId}/release`, alice.token)).status).toBe(200);
        expect(await clientS.next((x) => x.event === 'room.released')).toMatchObject({
          data: { status: { state: 'pool', assigned_admin: null } },
        });
      } finally {
        await Promise.all([aliceS.close(), clientS.close()]);
      }
    },
  );
  it('ends the other admins’ subscriptions to a pooled support room when one admin claims it', async () => {
    const f = await confirmedOrder(t);
    const roomId = await roomOf(t, f, f.client.token, 'ORDER_ADMIN_CLIENT_SUPPORT');
    const channel = `chat.rooms.${roomId}`;
    const [alice, bob] = [await signInAdmin(t, { superAdmin: false }), await signInAdmin(t, { superAdmin: false })];
    const [aliceS, bobS, clientS] = await Promise.all([
      open(t, alice.token),
      open(t, bob.token),
      open(t, f.client.token),
    ]);
    try {
      for (const s of [aliceS, bobS, clientS])
        expect(await s.subscribe(channel)).toEqual({ type: 'subscribed', channel });
      expect((await call(t).post(`/admin/chat-rooms/${roomId}/claim`, alice.token)).status).toBe(200);
      // Bob hears the claim, then the gateway ends his subscription; Alice and the client keep theirs.
      expect(await bobS.next((x) => x.event === 'room.claimed')).toMatchObject({ channel });
      expect(await bobS.next((x) => x.type === 'unsubscribed')).toEqual({
        type: 'unsubscribed',
        channel,
        reason: 'Forbidden',
      });
      const sent = await call(t).post(`/admin/chat-rooms/${roomId}/messages`, alice.token, { content: 'Solo Alice' });
      expect(sent.status).toBe(201);
      await clientS.next((x) => x.event === 'message.created');
      await aliceS.next((x) => x.event === 'message.created');
      // Frames of one socket arrive in order: anything sent to Bob before the client heard the message
      // arrives before the answer to a ping he sends now.
      bobS.send({ type: 'ping' });
      await bobS.next((x) => x.type === 'pong');
      expect(bobS.frames.filter((x) => x.event === 'message.created')).toEqual([]);
      for (const s of [aliceS, clientS]) expect(s.frames.filter((x) => x.type === 'unsubscribed')).toEqual([]);
    } finally {
      await Promise.all([aliceS.close(), bobS.close(), clientS.close()]);
    }
  });
});

describe.runIf(process.env.NATS_URL && process.env.DATABASE_URL)(
  'chat across instances (real NATS and PostgreSQL)',
  () => {
    let a: Awaited<ReturnType<typeof startTestService>>;
    let b: TestService;
    beforeAll(async () => {
      a = await startTestService({ env: ENV });
      // B serves HTTP and websockets only, on the same database and bus prefix: what B's sockets hear came over NATS.
      b = await startInstanceBeside(a, { env: ENV, roles: ['api', 'gateway'] });
    });
    afterAll(async () => {
      await b?.stop();
      await a?.stop();
    });

    it('a message sent through instance A reaches a socket on instance B', async () => {
      const f = await confirmedOrder(a);
      const roomId = await roomOf(a, f, f.client.token, 'ORDER_CLIENT_DRIVER');
      const s = await open(b, f.driver.token);
      try {
        expect(await s.subscribe(`chat.rooms.${roomId}`)).toMatchObject({ type: 'subscribed' });
        const sent = await call(a).post(`/chat-rooms/${roomId}/messages`, f.client.token, { content: 'desde A' });
        expect(sent.status).toBe(201);
        expect(await s.next((x) => x.type === 'message')).toEqual({
          type: 'message',
          channel: `chat.rooms.${roomId}`,
          event: 'message.created',
          data: sent.body.message,
        });
      } finally {
        await s.close();
      }
    });

    it('two admins racing on different instances: one claim wins, the other gets 409', async () => {
      const f = await confirmedOrder(a);
      const roomId = await roomOf(a, f, f.client.token, 'ORDER_ADMIN_CLIENT_SUPPORT');
      const [alice, bob] = [await signInAdmin(a, { superAdmin: false }), await signInAdmin(a, { superAdmin: false })];
      const answers = await Promise.all([
        a.request('POST', `/api/v1/admin/chat-rooms/${roomId}/claim`, { token: alice.token }),
        b.request('POST', `/api/v1/admin/chat-rooms/${roomId}/claim`, { token: bob.token }),
      ]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    });
  },
);
