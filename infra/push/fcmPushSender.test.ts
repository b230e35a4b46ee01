import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFcmPushSender } from './fcmPushSender.js';

/** A local stand-in for the provider: answers by token, records what it got. */
const answers: Record<string, { status: number; body?: unknown }> = {
  live: { status: 200, body: { name: 'projects/x/messages/1' } },
  gone: {
    status: 404,
    body: { error: { code: 404, status: 'NOT_FOUND', message: 'Requested entity was not found.' } },
  },
  stale: {
    status: 400,
    body: {
      error: {
        code: 400,
        status: 'INVALID_ARGUMENT',
        details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' }],
      },
    },
  },
  broken: { status: 503, body: { error: { code: 503, status: 'UNAVAILABLE' } } },
};

describe('FCM-style push adapter', () => {
  let server: Server;
  let url: string;
  const received: { headers: IncomingMessage['headers']; body: any }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const body = JSON.parse(raw);
        received.push({ headers: req.headers, body });
        const a = answers[body.message.token];
        res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/projects/x/messages:send`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const message = {
    userId: 7,
    notificationId: 'a5b2c1d0-0000-5000-8000-000000000001',
    type: 'offer_received',
    title: 'New offer',
    body: 'A driver offered $25.00',
    priority: 'high',
    data: { order_id: 12, offer_id: 34, note: null },
  };

  it('posts one message per device with the key as bearer and string data', async () => {
    const push = createFcmPushSender(url, 'server-key');
    expect(await push.send({ token: 'live', platform: 'android' }, message)).toBe('sent');
    const last = received[received.length - 1];
    expect(last.headers.authorization).toBe('Bearer server-key');
    expect(last.body).toEqual({
      message: {
        token: 'live',
        notification: { title: 'New offer', body: 'A driver offered $25.00' },
        data: { order_id: '12', offer_id: '34', notification_id: message.notificationId, type: 'offer_received' },
        android: { priority: 'HIGH' },
        apns: { headers: { 'apns-priority': '10' } },
      },
    });
  });

  it('reports a token the provider no longer knows as unregistered (404 or UNREGISTERED)', async () => {
    const push = createFcmPushSender(url, 'server-key');
    expect(await push.send({ token: 'gone', platform: 'ios' }, message)).toBe('unregistered');
    expect(await push.send({ token: 'stale', platform: 'android' }, message)).toBe('unregistered');
  });

  it('throws on any other failure', async () => {
    const push = createFcmPushSender(url, 'server-key');
    await expect(push.send({ token: 'broken', platform: 'android' }, message)).rejects.toThrow(/503/);
  });
});
