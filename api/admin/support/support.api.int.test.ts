import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../infra/clock.js';
import { signInAdmin, signInClient, type SignedInAdmin } from '../../../tests/support/actors.js';
import {
  expectNothingAppended,
  expectResponse,
  race,
  startApiUnderTest,
  type ApiUnderTest,
  type Assertion,
  type Send,
} from '../../../tests/support/apiSpecification.js';
import { arrive, call, confirmedOrder, type Flow } from '../../../tests/support/orderFlows.js';

/**
 * The support inbox over HTTP. Rooms, claims and messages are kept as state, not as events (commands/chat): every
 * request here, answered or refused, appends nothing, and what it changed is read back over HTTP.
 */

const DRIVER_SUPPORT = 'ORDER_ADMIN_SUPPORT';
const CLIENT_SUPPORT = 'ORDER_ADMIN_CLIENT_SUPPORT';

describe('support inbox', () => {
  let t: ApiUnderTest;
  let api: ReturnType<typeof call>;
  let alice: SignedInAdmin;
  let bob: SignedInAdmin;
  beforeAll(async () => {
    t = await startApiUnderTest({ env: { OFFICIAL_RATE_VES: '36.5' } });
    api = call(t);
    // Support is global: a plain admin of one city handles every city's rooms.
    [alice, bob] = [
      await signInAdmin(t, { superAdmin: false, cityIds: [2] }),
      await signInAdmin(t, { superAdmin: false }),
    ];
  });
  afterAll(async () => {
    await t?.stop();
  });

  /** The request, then its answer, and nothing appended. */
  const request = (send: Send, ...then: Assertion[]) =>
    t
      .given()
      .when(send)
      .then(...then, expectNothingAppended);
  const supportError = (status: number) => ({ status, body: { error: 'SupportError', message: expect.any(String) } });
  const refusedAs = (status: number) => expectResponse(status, { body: supportError(status).body });
  const claimedBy = (a: SignedInAdmin) => ({
    state: 'claimed',
    assigned_admin: { id: a.admin.id, name: a.admin.name },
  });
  const POOL = { state: 'pool', assigned_admin: null };

  /** A confirmed order whose client opened the client support room and wrote in it. */
  const clientSupportRoom = async (opts: { body?: Record<string, unknown>; message?: string } = {}) => {
    const f = await confirmedOrder(t, { body: opts.body });
    const r = await request((api) =>
      api.post(`/orders/${f.orderId}/chat-rooms`, f.client.token, { type: CLIENT_SUPPORT }),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const roomId: number = r.body.room.id;
    if (opts.message !== undefined)
      expect(
        (await request((api) => api.post(`/chat-rooms/${roomId}/messages`, f.client.token, { content: opts.message })))
          .status,
      ).toBe(201);
    return { f, roomId };
  };
  const driverSupportRoom = async (f: Flow) =>
    (
      await request(
        (api) => api.post(`/orders/${f.orderId}/chat-rooms`, f.driver.token, { type: DRIVER_SUPPORT }),
        expectResponse(200),
      )
    ).body.room.id as number;
  const inbox = (token: string, query = '') => api.get(`/admin/order-support${query}`, token);
  const claim =
    (roomId: number, a: SignedInAdmin): Send =>
    (api) =>
      api.post(`/admin/chat-rooms/${roomId}/claim`, a.token);
  const sendAs =
    (roomId: number, a: SignedInAdmin, content: string): Send =>
    (api) =>
      api.post(`/admin/chat-rooms/${roomId}/messages`, a.token, { content });
  const release =
    (roomId: number, a: SignedInAdmin): Send =>
    (api) =>
      api.post(`/admin/chat-rooms/${roomId}/release`, a.token);
  const markRead =
    (roomId: number | string, a: SignedInAdmin): Send =>
    (api) =>
      api.post(`/admin/chat-rooms/${roomId}/read`, a.token);
  const readRoom =
    (roomId: number | string, a: SignedInAdmin): Send =>
    (api) =>
      api.get(`/admin/chat-rooms/${roomId}`, a.token);
  const deliver = async (f: Flow) => {
    await arrive(t, f);
    expect(
      (await api.post(`/orders/${f.orderId}/deliver`, f.driver.token, { actualLiters: 2000, deliveryPin: f.pin }))
        .status,
    ).toBe(200);
  };
  const itemOf = (page: { items: { room_id: number }[] }, roomId: number) =>
    page.items.find((i) => i.room_id === roomId);

  it('lists pooled rooms with kind, channel and last message, newest activity first; kind filters', async () => {
    const { f, roomId: clientRoom } = await clientSupportRoom({ message: 'Necesito ayuda con el pago' });
    const driverRoom = await driverSupportRoom(f);
    const page = (await inbox(alice.token)).body;
    expect(page).toMatchObject({ has_more: false, next_cursor: null });
    // The driver's room was created after the client's last message: it is the newest activity.
    expect(page.items.slice(0, 2).map((i: { room_id: number }) => i.room_id)).toEqual([driverRoom, clientRoom]);
    expect(itemOf(page, clientRoom)).toEqual({
      order_id: f.orderId,
      room_id: clientRoom,
      kind: 'client',
      channel: `chat.rooms.${clientRoom}`,
      state: 'pool',
      assigned_admin: null,
      last_message: {
        sender_role: 'CLIENT',
        sender_name: 'Cliente de prueba',
        content: 'Necesito ayuda con el pago',
        created_at: expect.any(String),
      },
    });
    expect(itemOf(page, driverRoom)).toMatchObject({ kind: 'driver', state: 'pool', last_message: null });
    // A new message moves the room to the top.
    expect(
      (await request((api) => api.post(`/chat-rooms/${clientRoom}/messages`, f.client.token, { content: '¿Hola?' })))
        .status,
    ).toBe(201);
    const after = (await inbox(alice.token, '?bucket=pool')).body;
    expect(after.items[0]).toMatchObject({ room_id: clientRoom, last_message: { content: '¿Hola?' } });
    const clients = (await inbox(alice.token, '?kind=client')).body.items;
    expect(clients.every((i: { kind: string }) => i.kind === 'client')).toBe(true);
    expect(itemOf({ items: clients }, clientRoom)).toBeDefined();
    const drivers = (await inbox(alice.token, '?kind=driver')).body.items;
    expect(drivers.every((i: { kind: string }) => i.kind === 'driver')).toBe(true);
    expect(itemOf({ items: drivers }, driverRoom)).toBeDefined();
  });

  it('pages the inbox with an opaque cursor, without gaps or repeats', async () => {
    const rooms: number[] = [];
    for (let i = 0; i < 5; i++) rooms.push((await clientSupportRoom({ message: `pedido ${i}` })).roomId);
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const r: { status: number; body: any } = await inbox(
        bob.token,
        `?kind=client&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(r.status).toBe(200);
      expect(r.body.items.length).toBeLessThanOrEqual(2);
      expect(r.body.has_more).toBe(r.body.next_cursor !== null);
      seen.push(...r.body.items.map((i: { room_id: number }) => i.room_id));
      cursor = r.body.next_cursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.slice(0, 5)).toEqual([...rooms].reverse());
    for (const bad of ['?limit=0', '?limit=101', '?bucket=all', '?kind=admin', '?cursor=nonsense']) {
      const r = await inbox(bob.token, bad);
      expect(r.status, bad).toBe(422);
      expect(r.body.error).toBe('ValidationError');
    }
  });

  it('claims a pooled room (idempotent for the owner) and moves it to the owner’s mine bucket', async () => {
    const { roomId } = await clientSupportRoom({ message: 'ayuda' });
    await request(claim(roomId, alice), expectResponse(200, { body: { status: claimedBy(alice) } }));
    await request(claim(roomId, alice), expectResponse(200, { body: { status: claimedBy(alice) } }));
    expect(itemOf((await inbox(alice.token)).body, roomId)).toBeUndefined();
    expect(itemOf((await inbox(alice.token, '?bucket=mine')).body, roomId)).toMatchObject({
      state: 'claimed',
      assigned_admin: claimedBy(alice).assigned_admin,
    });
    expect(itemOf((await inbox(bob.token, '?bucket=mine')).body, roomId)).toBeUndefined();
  });

  it('gives one winner to two admins racing to claim: one 200 and one 409', async () => {
    for (let round = 0; round < 3; round++) {
      const { roomId } = await clientSupportRoom();
      const claims = race((api) => [claim(roomId, alice)(api), claim(roomId, bob)(api)]);
      await t.given().when(claims.send).then(expectNothingAppended);
      const answers = claims.responses;
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      const loser = answers.find((a) => a.status === 409)!;
      expect(loser.body).toMatchObject({ error: 'SupportError' });
      const winner = answers[0].status === 200 ? alice : bob;
      expect((await api.get(`/admin/chat-rooms/${roomId}`, winner.token)).body.status).toEqual(claimedBy(winner));
    }
  });

  it('gives one owner when a claim races a first message (send claims a pooled room)', async () => {
    const { roomId } = await clientSupportRoom();
    const both = race((api) => [claim(roomId, alice)(api), sendAs(roomId, bob, 'Hola, soy Bob')(api)]);
    await t.given().when(both.send).then(expectNothingAppended);
    const [claimed, sent] = both.responses;
    expect([claimed.status, sent.status].sort()).toEqual(claimed.status === 200 ? [200, 409] : [201, 409]);
    const owner = claimed.status === 200 ? alice : bob;
    const room = (await api.get(`/admin/chat-rooms/${roomId}`, owner.token)).body;
    expect(room.status).toEqual(claimedBy(owner));
    // Nothing half-written: the losing send stored no message.
    expect(room.messages).toHaveLength(owner === bob ? 1 : 0);
  });

  it(
    'reads a support room: pooled by any admin, claimed only by ' +
      'its admin (403); 404 for unknown and client-driver rooms',
    async () => {
      const { f, roomId } = await clientSupportRoom({ message: 'hola' });
      const read = await api.get(`/admin/chat-rooms/${roomId}`, bob.token);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({
        room_id: roomId,
        order_id: f.orderId,
        kind: 'client',
        channel: `chat.rooms.${roomId}`,
        // The order the operator answers about: its status, the client and the driver with the plate.
        order: {
          id: f.orderId,
          status: 'CONFIRMED',
          client: { name: f.client.user.name, phone: f.client.user.phone },
          driver: { name: f.driver.user.name, phone: f.driver.user.phone, plate: expect.stringMatching(/^AB\d{5}$/) },
        },
        messages: [
          expect.objectContaining({ sender_role: 'CLIENT', content: 'hola', type: 'TEXT', order_id: f.orderId }),
        ],
        status: POOL,
      });
      await request(claim(roomId, alice), expectResponse(200));
      expect((await api.get(`/admin/chat-rooms/${roomId}`, alice.token)).status).toBe(200);
      await request(readRoom(roomId, bob), refusedAs(403));
      const cd = (
        await request((api) =>
          api.post(`/orders/${f.orderId}/chat-rooms`, f.client.token, { type: 'ORDER_CLIENT_DRIVER' }),
        )
      ).body.room.id;
      for (const id of [cd, 999999, 'abc']) {
        await request(readRoom(id, alice), refusedAs(404));
        await request(claim(id as number, alice), refusedAs(404));
        await request(sendAs(id as number, alice, 'x'), refusedAs(404));
        await request(release(id as number, alice), refusedAs(404));
        await request(markRead(id, alice), refusedAs(404));
      }
    },
  );

  it('sends as admin (201 {message, channel, status}), claiming a pooled room; the user reads it', async () => {
    const { f, roomId } = await clientSupportRoom({ message: 'No llegó el agua' });
    const sent = await request(sendAs(roomId, bob, 'Revisamos su pedido'), expectResponse(201));
    expect(sent.status).toBe(201);
    expect(sent.body).toEqual({
      channel: `chat.rooms.${roomId}`,
      status: claimedBy(bob),
      message: {
        id: expect.any(Number),
        order_id: f.orderId,
        sender_id: bob.admin.id,
        sender_role: 'ADMIN',
        sender_name: bob.admin.name,
        content: 'Revisamos su pedido',
        type: 'TEXT',
        created_at: expect.any(String),
      },
    });
    expect((await request(sendAs(roomId, bob, 'Un momento'))).status).toBe(201);
    const seen = (await api.get(`/chat-rooms/${roomId}/messages`, f.client.token)).body.messages;
    expect(seen.map((m: { sender_role: string; content: string }) => [m.sender_role, m.content])).toEqual([
      ['CLIENT', 'No llegó el agua'],
      ['ADMIN', 'Revisamos su pedido'],
      ['ADMIN', 'Un momento'],
    ]);
    // The user's resolve shows who holds the room.
    expect(
      (await request((api) => api.post(`/orders/${f.orderId}/chat-rooms`, f.client.token, { type: CLIENT_SUPPORT })))
        .body.room.status,
    ).toEqual(claimedBy(bob));
    for (const body of [{}, { content: '' }, { content: 'x'.repeat(501) }]) {
      const r = await request(
        (api) => api.post(`/admin/chat-rooms/${roomId}/messages`, bob.token, body),
        expectResponse(422, { body: { error: 'ValidationError' } }),
      );
      expect(r.status).toBe(422);
      expect(r.body.details.fieldErrors).toHaveProperty('content');
    }
  });

  it('refuses claim and send once the order is no longer active (400), and drops it from the pool', async () => {
    const { f, roomId } = await clientSupportRoom({ message: 'ayuda' });
    const held = await clientSupportRoom({ message: 'ayuda 2' });
    await request(claim(held.roomId, alice), expectResponse(200));
    await deliver(f);
    await deliver(held.f);
    await request(claim(roomId, alice), refusedAs(400));
    await request(sendAs(roomId, alice, 'tarde'), refusedAs(400));
    expect(itemOf((await inbox(alice.token)).body, roomId)).toBeUndefined();
    // The holder still reads it, may not write or re-claim it, and may release it.
    expect((await api.get(`/admin/chat-rooms/${held.roomId}`, alice.token)).status).toBe(200);
    await request(sendAs(held.roomId, alice, 'tarde'), refusedAs(400));
    await request(claim(held.roomId, alice), refusedAs(400));
    expect(itemOf((await inbox(alice.token, '?bucket=mine')).body, held.roomId)).toBeDefined();
    await request(release(held.roomId, alice), expectResponse(200, { body: { status: POOL } }));
  });

  it('releases to the pool (assigned admin only: 403 for others, 409 when not claimed)', async () => {
    const { roomId } = await clientSupportRoom({ message: 'ayuda' });
    await request(release(roomId, alice), refusedAs(409));
    await request(claim(roomId, alice), expectResponse(200));
    await request(release(roomId, bob), refusedAs(403));
    await request(release(roomId, alice), expectResponse(200, { body: { status: POOL } }));
    await request(release(roomId, alice), refusedAs(409));
    expect(itemOf((await inbox(bob.token)).body, roomId)).toMatchObject({ state: 'pool', assigned_admin: null });
    // Back in the pool, anyone may take it.
    await request(claim(roomId, bob), expectResponse(200, { body: { status: claimedBy(bob) } }));
  });

  it('marks a room read for its assigned admin only (403 when pooled or someone else’s)', async () => {
    const { roomId } = await clientSupportRoom({ message: 'ayuda' });
    await request(markRead(roomId, alice), refusedAs(403));
    await request(claim(roomId, alice), expectResponse(200));
    await request(markRead(roomId, alice), expectResponse(200, { body: { read_at: expect.any(String) } }));
    await request(markRead(roomId, bob), refusedAs(403));
  });

  it('works on a WAITING_FOR_PAYMENT order, and for the driver’s support room', async () => {
    const f = await confirmedOrder(t, { body: { paymentMethod: 'EXCHANGE_PAY' } });
    const roomId = await driverSupportRoom(f);
    expect(
      (
        await request((api) =>
          api.post(`/chat-rooms/${roomId}/messages`, f.driver.token, { content: 'El cliente no paga' }),
        )
      ).status,
    ).toBe(201);
    expect(itemOf((await inbox(alice.token, '?kind=driver')).body, roomId)).toMatchObject({
      kind: 'driver',
      last_message: { sender_role: 'DRIVER' },
    });
    expect((await request(sendAs(roomId, alice, 'Esperemos el pago'))).status).toBe(201);
    const seen = (await api.get(`/chat-rooms/${roomId}/messages`, f.driver.token)).body.messages;
    expect(seen.map((m: { content: string }) => m.content)).toEqual(['El cliente no paga', 'Esperemos el pago']);
  });

  it('is for admins only: 401 without a token, 403 Forbidden for app users', async () => {
    const client = await signInClient(t);
    expect((await inbox('')).status).toBe(401);
    expect((await request((api) => api.post('/admin/chat-rooms/1/claim'), expectResponse(401))).status).toBe(401);
    expect((await inbox(client.token)).status).toBe(403);
    expect(
      (await request((api) => api.post('/admin/chat-rooms/1/claim', client.token), expectResponse(403))).status,
    ).toBe(403);
  });
});

describe('support claims over time', () => {
  const clock = new ManualClock();
  let t: ApiUnderTest;
  beforeAll(async () => {
    t = await startApiUnderTest({ clock, env: { OFFICIAL_RATE_VES: '36.5' } });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it(
    'answers a claim or send on a room another admin claimed within ' +
      'SUPPORT_CLAIM_RACE_SECONDS (5) with 409, later with 403',
    async () => {
      const api = call(t);
      const [alice, bob] = [await signInAdmin(t, { superAdmin: false }), await signInAdmin(t, { superAdmin: false })];
      const f = await confirmedOrder(t);
      const roomId = (await api.post(`/orders/${f.orderId}/chat-rooms`, f.client.token, { type: CLIENT_SUPPORT })).body
        .room.id;
      /** The request, then its answer, and nothing appended (support is kept as state). */
      const request = (send: Send, answer: Assertion) => t.given().when(send).then(answer, expectNothingAppended);
      const claim = (a: SignedInAdmin) => (r: typeof api) => r.post(`/admin/chat-rooms/${roomId}/claim`, a.token);
      const send = (a: SignedInAdmin) => (r: typeof api) =>
        r.post(`/admin/chat-rooms/${roomId}/messages`, a.token, { content: 'yo me encargo' });
      expect((await request(claim(alice), expectResponse(200))).status).toBe(200);
      clock.advance(4_999);
      expect(await request(claim(bob), expectResponse(409))).toMatchObject({
        status: 409,
        body: { error: 'SupportError' },
      });
      expect(await request(send(bob), expectResponse(409))).toMatchObject({
        status: 409,
        body: { error: 'SupportError' },
      });
      clock.advance(1);
      expect(await request(claim(bob), expectResponse(403))).toMatchObject({
        status: 403,
        body: { error: 'SupportError' },
      });
      expect(await request(send(bob), expectResponse(403))).toMatchObject({
        status: 403,
        body: { error: 'SupportError' },
      });
      // The owner is never in a race with themselves.
      expect((await request(claim(alice), expectResponse(200))).status).toBe(200);
      const room = (await api.get(`/admin/chat-rooms/${roomId}`, alice.token)).body;
      expect(room).toMatchObject({
        status: { state: 'claimed', assigned_admin: { id: alice.admin.id } },
        messages: [],
      });
    },
  );
});
