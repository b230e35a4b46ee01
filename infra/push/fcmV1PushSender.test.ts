import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFcmStandIn } from '../../tests/support/providerStandIns/fcm.js';
import { ManualClock } from '../clock.js';
import { createFcmV1PushSender } from './fcmPushSender.js';
import { readServiceAccount } from './serviceAccount.js';

const message = {
  userId: 7,
  notificationId: 'a5b2c1d0-0000-5000-8000-000000000001',
  type: 'offer_received',
  title: 'New offer',
  body: 'A driver offered $25.00',
  priority: 'high',
  data: { order_id: 12, offer_id: 34 },
};

describe('FCM HTTP v1 with a service account', () => {
  const clock = new ManualClock();
  const dir = mkdtempSync(join(tmpdir(), 'fcm-'));
  let fcm: Awaited<ReturnType<typeof startFcmStandIn>>;
  beforeAll(async () => {
    fcm = await startFcmStandIn(clock);
  });
  afterAll(async () => {
    await fcm?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const senderFor = async (projectId: string, options?: { trusted?: boolean }) => {
    const { path } = await fcm.writeServiceAccount(dir, projectId, options);
    return createFcmV1PushSender(readServiceAccount(path), fcm.url, clock);
  };

  it("exchanges a signed assertion for an access token and sends to the key's project", async () => {
    const push = await senderFor('water-one');
    expect(await push.send({ token: 'device-1', platform: 'android' }, message)).toBe('sent');
    expect(fcm.exchanges).toHaveLength(1);
    // The message itself is the one the generic gateway gets (fcmPushSender.test.ts).
    expect(fcm.sent.at(-1)).toMatchObject({
      projectId: 'water-one',
      message: { token: 'device-1', data: { order_id: '12', type: 'offer_received' } },
    });
  });

  it('keeps the token while it lives and renews it before it expires', async () => {
    const push = await senderFor('water-two');
    const before = fcm.exchanges.length;
    await push.send({ token: 'device-2', platform: 'ios' }, message);
    clock.advance(50 * 60_000);
    await push.send({ token: 'device-2', platform: 'ios' }, message);
    expect(fcm.exchanges.length - before).toBe(1);
    // 56 minutes into a token of 3599 s: less than five minutes left, so a new one first.
    clock.advance(6 * 60_000);
    await push.send({ token: 'device-2', platform: 'ios' }, message);
    expect(fcm.exchanges.length - before).toBe(2);
  });

  it('asks together for one token', async () => {
    const push = await senderFor('water-three');
    const before = fcm.exchanges.length;
    await Promise.all([1, 2, 3].map((n) => push.send({ token: `device-${n}`, platform: 'android' }, message)));
    expect(fcm.exchanges.length - before).toBe(1);
  });

  it('a token FCM no longer takes is dropped, and the send tried once more with a new one', async () => {
    const push = await senderFor('water-four');
    await push.send({ token: 'device-4', platform: 'android' }, message);
    const [before, refusedBefore] = [fcm.exchanges.length, fcm.unauthenticated()];
    fcm.revokeAll();
    expect(await push.send({ token: 'device-4', platform: 'android' }, message)).toBe('sent');
    expect([fcm.unauthenticated() - refusedBefore, fcm.exchanges.length - before]).toEqual([1, 1]);
  });

  it('an access token expired at FCM is refused with 401; the sender mints a new one and sends', async () => {
    // The sender's clock stays behind FCM's, so it still holds a token FCM has seen expire (3599 s), while
    // FCM still takes a new assertion it signed at its own time (an hour).
    const senderClock = new ManualClock(clock.now());
    const { path } = await fcm.writeServiceAccount(dir, 'water-late');
    const push = await createFcmV1PushSender(readServiceAccount(path), fcm.url, senderClock);
    await push.send({ token: 'device-8', platform: 'android' }, message);
    const [exchanged, refusedBefore] = [fcm.exchanges.length, fcm.unauthenticated()];
    clock.advance(3599_500);
    expect(await push.send({ token: 'device-8', platform: 'android' }, message)).toBe('sent');
    expect([fcm.unauthenticated() - refusedBefore, fcm.exchanges.length - exchanged]).toEqual([1, 1]);
  });

  it('reports a device FCM calls UNREGISTERED, to be forgotten', async () => {
    const push = await senderFor('water-five');
    fcm.unregistered.add('device-gone');
    expect(await push.send({ token: 'device-gone', platform: 'android' }, message)).toBe('unregistered');
  });

  it('a key the token endpoint does not trust fails without the assertion or the key in the error', async () => {
    const { path, account } = await fcm.writeServiceAccount(dir, 'water-six', { trusted: false });
    const push = await createFcmV1PushSender(readServiceAccount(path), fcm.url, clock);
    const failure = await push.send({ token: 'device-6', platform: 'android' }, message).catch((err: Error) => err);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe('token endpoint answered 400 invalid_grant');
    expect(JSON.stringify(failure)).not.toContain(account.private_key.slice(40, 80));
  });

  it('an assertion the endpoint reads as expired is refused (our clock two hours behind)', async () => {
    const { path } = await fcm.writeServiceAccount(dir, 'water-seven');
    const behind = new ManualClock(new Date(clock.now().getTime() - 2 * 3600_000));
    const late = await createFcmV1PushSender(readServiceAccount(path), fcm.url, behind);
    await expect(late.send({ token: 'device-7', platform: 'android' }, message)).rejects.toThrow(
      'token endpoint answered 400 invalid_grant',
    );
    const onTime = await createFcmV1PushSender(readServiceAccount(path), fcm.url, clock);
    expect(await onTime.send({ token: 'device-7', platform: 'android' }, message)).toBe('sent');
  });

  it('a key file that is missing or not a service account stops the start, naming the setting only', () => {
    expect(() => readServiceAccount(join(dir, 'none.json'))).toThrow(/^GOOGLE_APPLICATION_CREDENTIALS: .*ENOENT/);
    const wrong = join(dir, 'wrong.json');
    writeFileSync(wrong, JSON.stringify({ type: 'authorized_user', private_key: 'secret-value' }));
    expect(() => readServiceAccount(wrong)).toThrow(/not a service-account key file \(type, project_id/);
    expect(() => readServiceAccount(wrong)).not.toThrow(/secret-value/);
  });
});
