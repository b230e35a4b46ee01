import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInClient } from '../support/actors.js';
import { startTestService, type TestService } from '../support/testService.js';
import { openSocket, type Socket } from '../support/wsClient.js';

/**
 * One user may hold WS_MAX_SOCKETS_PER_USER (5 by default) open sockets and one client address
 * WS_MAX_SOCKETS_PER_IP (here 8, default 50); the socket over a cap opens and is at once closed with 4429 and a
 * reason naming the cap, and a place freed by a closed socket can be taken again.
 */
describe('websocket caps per user and per address', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: { OFFICIAL_RATE_VES: '36.5', WS_MAX_SOCKETS_PER_IP: '8' } });
  });
  afterAll(async () => {
    await t?.stop();
  });

  const openMany = (token: string, n: number, headers?: Record<string, string>) =>
    Promise.all(Array.from({ length: n }, () => openSocket(t, { token, headers })));

  /** A socket the gateway kept serves frames: it answers a ping. */
  const serves = async (s: Socket) => {
    s.send({ type: 'ping' });
    expect(await s.next((f) => f.type === 'pong')).toEqual({ type: 'pong' });
  };

  it('closes the 6th socket of one token with 4429; closing one lets a new one in', async () => {
    const client = await signInClient(t);
    const five = await openMany(client.token, 5);
    const opened: Socket[] = [...five];
    try {
      const sixth = await openSocket(t, { token: client.token });
      opened.push(sixth);
      expect(await sixth.closed).toEqual({
        code: 4429,
        reason: 'Too many open websockets for this user (at most 5)',
      });
      for (const s of five) await serves(s);
      // Another user from the same address is not counted against this one.
      const other = await openSocket(t, { token: (await signInClient(t)).token });
      opened.push(other);
      await serves(other);

      await five[0].close();
      const again = await openSocket(t, { token: client.token });
      opened.push(again);
      await serves(again);
    } finally {
      await Promise.all(opened.map((s) => s.close()));
    }
  });

  it('closes a socket over the per-address cap with 4429, whatever X-Forwarded-For claims', async () => {
    const [a, b, c] = [await signInClient(t), await signInClient(t), await signInClient(t)];
    const opened = [...(await openMany(a.token, 5)), ...(await openMany(b.token, 3))];
    try {
      // No trusted proxy (TRUST_PROXY unset): a forged forwarding header names no other address.
      const over = await openSocket(t, { token: c.token, headers: { 'x-forwarded-for': '203.0.113.9' } });
      opened.push(over);
      expect(await over.closed).toEqual({
        code: 4429,
        reason: 'Too many open websockets from this address (at most 8)',
      });
      await opened[0].close();
      const freed = await openSocket(t, { token: c.token });
      opened.push(freed);
      await serves(freed);
    } finally {
      await Promise.all(opened.map((s) => s.close()));
    }
  });
});
