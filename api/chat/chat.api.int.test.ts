import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmPayment } from '../../commands/order/payment.js';
import { signInAdmin, signInClient } from '../../tests/support/actors.js';
import { orderStream } from '../../domain/order/events.js';
import {
  expectNewEvents,
  expectNothingAppended,
  expectResponse,
  race,
  startApiUnderTest,
  type ApiUnderTest,
  type Send,
} from '../../tests/support/apiSpecification.js';
import { call, confirmedOrder, orderBody, type Flow } from '../../tests/support/orderFlows.js';

/**
 * In-order chat over HTTP. Rooms, messages and reads are kept as state, not as events (commands/chat): every chat
 * request, answered or refused, appends nothing.
 */

const CD = 'ORDER_CLIENT_DRIVER';
const DRIVER_SUPPORT = 'ORDER_ADMIN_SUPPORT';
const CLIENT_SUPPORT = 'ORDER_ADMIN_CLIENT_SUPPORT';

describe('chat rooms and messages', () => {
  let t: ApiUnderTest;
  let api: ReturnType<typeof call>;
  beforeAll(async () => {
    t = await startApiUnderTest({ env: { OFFICIAL_RATE_VES: '36.5' } });
    api = call(t);
  });
  afterAll(async () => {
    await t?.stop();
  });

  /** A chat request, its answer, and nothing appended. */
  const chat = (send: Send) => t.given().when(send).then(expectNothingAppended);
  const resolve = (f: Pick<Flow, 'orderId'>, token: string | undefined, type: string) =>
    chat((api) => api.post(`/orders/${f.orderId}/chat-rooms`, token, { type }));
  const send = (roomId: number, token: string | undefined, content: string) =>
    chat((api) => api.post(`/chat-rooms/${roomId}/messages`, token, { content }));
  const markRead = (roomId: number | string, token?: string) =>
    chat((api) => api.post(`/chat-rooms/${roomId}/read`, token));
  /** An order's own step (not chat): its answer and the events it appends to the order's stream. */
  const step = (f: Pick<Flow, 'orderId'>, send: Send, types: string[]) =>
    t
      .given()
      .when(send)
      .then(
        expectResponse(200),
        expectNewEvents(
          orderStream(f.orderId),
          types.map((type) => ({ type })),
        ),
      );
  const roomOf = async (f: Flow, token: string, type: string): Promise<number> => {
    const r = await resolve(f, token, type);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.room.id;
  };
  const chatError = (status: number) => ({ status, body: { error: 'ChatError', message: expect.any(String) } });

  it(
    'resolves the client-driver room of a confirmed order for ' +
      'the client and the driver: one room, its channel, no status',
    async () => {
      const f = await confirmedOrder(t);
      const byClient = await resolve(f, f.client.token, CD);
      expect(byClient.status).toBe(200);
      const room = byClient.body.room;
      expect(room).toEqual({ id: expect.any(Number), type: CD, channel: `chat.rooms.${room.id}`, messages: [] });
      const byDriver = await resolve(f, f.driver.token, CD);
      expect(byDriver.body.room).toEqual(room);
      expect((await resolve(f, f.client.token, CD)).body.room.id).toBe(room.id);
    },
  );

  it('gives one room to concurrent resolves', async () => {
    const f = await confirmedOrder(t);
    const resolves = race((api) =>
      Array.from({ length: 8 }, (_, i) =>
        api.post(`/orders/${f.orderId}/chat-rooms`, i % 2 ? f.client.token : f.driver.token, { type: CD }),
      ),
    );
    await t.given().when(resolves.send).then(expectNothingAppended);
    const answers = resolves.responses;
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(new Set(answers.map((a) => a.body.room.id)).size).toBe(1);
  });

  it(
    'sends a message (201 {message, channel}), lists the last 50, oldest ' +
      'first, and marks the room read for the caller (200 {read_at})',
    async () => {
      const f = await confirmedOrder(t);
      const roomId = await roomOf(f, f.client.token, CD);
      const first = await send(roomId, f.client.token, 'Hola, ¿a qué hora llega?');
      expect(first.status).toBe(201);
      expect(first.body).toEqual({
        channel: `chat.rooms.${roomId}`,
        message: {
          id: expect.any(Number),
          order_id: f.orderId,
          sender_id: f.client.user.id,
          sender_role: 'CLIENT',
          sender_name: 'Cliente de prueba',
          content: 'Hola, ¿a qué hora llega?',
          type: 'TEXT',
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
      });
      const reply = await send(roomId, f.driver.token, 'En 20 minutos');
      expect(reply.body.message).toMatchObject({
        sender_id: f.driver.user.id,
        sender_role: 'DRIVER',
        sender_name: 'Conductor de prueba',
      });
      for (let i = 3; i <= 55; i++)
        expect((await send(roomId, i % 2 ? f.client.token : f.driver.token, `m${i}`)).status).toBe(201);
      const list = await api.get(`/chat-rooms/${roomId}/messages`, f.driver.token);
      expect(list.status).toBe(200);
      expect(list.body.channel).toBe(`chat.rooms.${roomId}`);
      expect(list.body.messages).toHaveLength(50);
      expect(list.body.messages.map((m: { content: string }) => m.content)).toEqual(
        Array.from({ length: 50 }, (_, i) => `m${i + 6}`),
      );
      // The room read answers the same history.
      expect((await resolve(f, f.client.token, CD)).body.room.messages).toEqual(list.body.messages);
      const read = await markRead(roomId, f.client.token);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ read_at: expect.any(String) });
      expect(Number.isNaN(Date.parse(read.body.read_at))).toBe(false);
      expect((await markRead(roomId, f.driver.token)).status).toBe(200);
    },
  );

  it(
    'lets each party open only the room types of its role (403 ChatError), refuses ' +
      'non-members, and answers 422 naming the field for a bad type or content',
    async () => {
      // Who is a member is domain/chat/rules.test.ts's (another driver included); here each route's 403, once.
      const f = await confirmedOrder(t);
      const [stranger, admin] = await Promise.all([signInClient(t), signInAdmin(t)]);
      expect(await resolve(f, f.client.token, DRIVER_SUPPORT)).toMatchObject(chatError(403));
      expect(await resolve(f, f.driver.token, CLIENT_SUPPORT)).toMatchObject(chatError(403));
      for (const token of [stranger.token, admin.token]) {
        for (const type of [CD, DRIVER_SUPPORT, CLIENT_SUPPORT])
          expect(await resolve(f, token, type)).toMatchObject(chatError(403));
      }
      const cd = await roomOf(f, f.client.token, CD);
      const clientSupport = await roomOf(f, f.client.token, CLIENT_SUPPORT);
      const driverSupport = await roomOf(f, f.driver.token, DRIVER_SUPPORT);
      const refusals: [number, string][] = [
        [cd, stranger.token],
        [cd, admin.token],
        [clientSupport, f.driver.token],
        [driverSupport, f.client.token],
      ];
      for (const [roomId, token] of refusals) {
        expect(await api.get(`/chat-rooms/${roomId}/messages`, token)).toMatchObject(chatError(403));
        expect(await send(roomId, token, 'hola')).toMatchObject(chatError(403));
        expect(await markRead(roomId, token)).toMatchObject(chatError(403));
      }
      expect((await api.get(`/chat-rooms/${cd}/messages`, f.client.token)).body.messages).toEqual([]);

      for (const body of [{}, { type: 'ORDER_SOMETHING' }, { type: 7 }, { type: null }]) {
        const r = await chat((api) => api.post(`/orders/${f.orderId}/chat-rooms`, f.client.token, body));
        expect(r.status).toBe(422);
        expect(r.body).toMatchObject({
          error: 'ValidationError',
          details: { fieldErrors: { type: expect.any(Array) } },
        });
      }
      for (const body of [{}, { content: '' }, { content: 'x'.repeat(501) }, { content: '   ' }, { content: 42 }]) {
        const r = await chat((api) => api.post(`/chat-rooms/${cd}/messages`, f.client.token, body));
        expect(r.status).toBe(422);
        expect(r.body).toMatchObject({
          error: 'ValidationError',
          details: { fieldErrors: { content: expect.any(Array) } },
        });
      }
      expect((await send(cd, f.client.token, 'x'.repeat(500))).status).toBe(201);
      expect((await send(cd, f.client.token, 'x')).status).toBe(201);
      expect((await api.get(`/chat-rooms/${cd}/messages`, f.client.token)).body.messages).toHaveLength(2);
    },
  );

  it('answers 404 ChatError for an unknown order or room, and 401 without a token', async () => {
    const client = await signInClient(t);
    expect(await resolve({ orderId: 999999 }, client.token, CD)).toMatchObject(chatError(404));
    expect(await resolve({ orderId: 'abc' as never }, client.token, CD)).toMatchObject(chatError(404));
    for (const id of ['999999', 'abc', '0']) {
      expect(await api.get(`/chat-rooms/${id}/messages`, client.token)).toMatchObject(chatError(404));
      expect(await send(id as never, client.token, 'hola')).toMatchObject(chatError(404));
      expect(await markRead(id, client.token)).toMatchObject(chatError(404));
    }
    expect((await resolve({ orderId: 1 }, undefined, CD)).status).toBe(401);
    expect((await api.get('/chat-rooms/1/messages')).status).toBe(401);
    expect((await send(1, undefined, 'x')).status).toBe(401);
    expect((await markRead(1)).status).toBe(401);
  });

  describe('windows per order status', () => {
    it('BROADCASTING: no room of any type can be opened (400)', async () => {
      const client = await signInClient(t);
      const created = await api.post('/orders', client.token, orderBody());
      const order = { orderId: created.body.order.id as number };
      expect(await resolve(order, client.token, CD)).toMatchObject(chatError(400));
      expect(await resolve(order, client.token, CLIENT_SUPPORT)).toMatchObject(chatError(400));
    });

    it(
      'WAITING_FOR_PAYMENT: support rooms open (pooled), the client-driver room not yet (400); once ' +
        'paid, CONFIRMED, IN_PROGRESS and ARRIVED: every room is open; DELIVERED: client-driver only',
      async () => {
        // Which room opens in which status is domain/chat/rules.test.ts's; here one order through all of them.
        const f = await confirmedOrder(t, { body: { paymentMethod: 'EXCHANGE_PAY' } });
        expect((await api.get(`/orders/${f.orderId}`, f.client.token)).body.order.status).toBe('WAITING_FOR_PAYMENT');
        expect(await resolve(f, f.client.token, CD)).toMatchObject(chatError(400));
        expect(await resolve(f, f.driver.token, CD)).toMatchObject(chatError(400));
        const waitingSupport = await resolve(f, f.client.token, CLIENT_SUPPORT);
        expect(waitingSupport.status).toBe(200);
        expect(waitingSupport.body.room).toMatchObject({
          type: CLIENT_SUPPORT,
          messages: [],
          status: { state: 'pool', assigned_admin: null },
        });
        const waitingDriverSupport = await resolve(f, f.driver.token, DRIVER_SUPPORT);
        expect(waitingDriverSupport.body.room).toMatchObject({
          type: DRIVER_SUPPORT,
          status: { state: 'pool', assigned_admin: null },
        });
        expect(waitingDriverSupport.body.room.id).not.toBe(waitingSupport.body.room.id);
        expect((await send(waitingSupport.body.room.id, f.client.token, 'No puedo pagar')).status).toBe(201);
        expect((await send(waitingDriverSupport.body.room.id, f.driver.token, 'El cliente no paga')).status).toBe(201);

        await t.service.ctx.settle((await confirmPayment(t.service.ctx, f.orderId, 77)).position);
        const paid = (await api.get(`/orders/${f.orderId}`, f.client.token)).body.order;
        expect(paid.status).toBe('CONFIRMED');
        const cd = await roomOf(f, f.client.token, CD);
        const clientSupport = await roomOf(f, f.client.token, CLIENT_SUPPORT);
        const driverSupport = await roomOf(f, f.driver.token, DRIVER_SUPPORT);
        expect([clientSupport, driverSupport]).toEqual([
          waitingSupport.body.room.id,
          waitingDriverSupport.body.room.id,
        ]);
        const sendAll = async (label: string) => {
          expect((await send(cd, f.client.token, `${label} cd`)).status).toBe(201);
          expect((await send(clientSupport, f.client.token, `${label} client support`)).status).toBe(201);
          expect((await send(driverSupport, f.driver.token, `${label} driver support`)).status).toBe(201);
        };
        await sendAll('confirmed');
        expect(
          (await step(f, (api) => api.post(`/orders/${f.orderId}/start`, f.driver.token), ['TripStarted'])).status,
        ).toBe(200);
        await sendAll('in progress');
        expect(
          (
            await step(
              f,
              (api) =>
                api.post(`/orders/${f.orderId}/arrived`, f.driver.token, { latitude: 10.4816, longitude: -66.9036 }),
              ['DriverLocationRecorded', 'DriverArrived'],
            )
          ).status,
        ).toBe(200);
        await sendAll('arrived');
        expect(
          (
            await step(
              f,
              (api) =>
                api.post(`/orders/${f.orderId}/deliver`, f.driver.token, {
                  actualLiters: 2000,
                  deliveryPin: paid.delivery_pin,
                }),
              ['OrderDelivered'],
            )
          ).status,
        ).toBe(200);
        expect((await send(cd, f.driver.token, 'Gracias')).status).toBe(201);
        expect(await send(clientSupport, f.client.token, 'late')).toMatchObject(chatError(400));
        expect(await send(driverSupport, f.driver.token, 'late')).toMatchObject(chatError(400));
        // Existing support rooms still resolve and read (history), closed for writing.
        const again = await resolve(f, f.client.token, CLIENT_SUPPORT);
        expect(again.status).toBe(200);
        expect(again.body.room.messages.map((m: { content: string }) => m.content)).toEqual([
          'No puedo pagar',
          'confirmed client support',
          'in progress client support',
          'arrived client support',
        ]);
        expect((await api.get(`/chat-rooms/${cd}/messages`, f.client.token)).body.messages).toHaveLength(4);
      },
    );

    it('CANCELLED: an open client-driver room is read-only (send 400), and none can be created', async () => {
      const f = await confirmedOrder(t);
      const cd = await roomOf(f, f.client.token, CD);
      expect((await send(cd, f.client.token, 'me arrepentí')).status).toBe(201);
      expect(
        (await step(f, (api) => api.post(`/orders/${f.orderId}/cancel`, f.client.token, {}), ['OrderCancelled']))
          .status,
      ).toBe(200);
      expect(await send(cd, f.client.token, 'hola?')).toMatchObject(chatError(400));
      expect((await api.get(`/chat-rooms/${cd}/messages`, f.driver.token)).body.messages).toHaveLength(1);
      expect((await resolve(f, f.client.token, CD)).body.room.id).toBe(cd);
      expect(await resolve(f, f.client.token, CLIENT_SUPPORT)).toMatchObject(chatError(400));
    });
  });
});
