import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../domain/actor.js';
import { signInAdmin } from '../../tests/support/actors.js';
import { startTestService, type TestService } from '../../tests/support/testService.js';
import { openSocket } from '../../tests/support/wsClient.js';
import { channelsOf } from './channels.js';

/**
 * A support room claimed while another admin subscribes to it (issue #44): the subscriber's authorization
 * read the room before the claim, and answers only after the claim's re-check has run. The channel here is a
 * room of its own whose authorizer the test holds back, so the interleaving is the same on every run; the
 * gateway, the bus and the sign-in are the service's own.
 */
describe('a subscription that races a claim', () => {
  let t: TestService;
  let claimedBy: number | null = null;
  let releaseFirstLook: () => void = () => undefined;
  const firstLookHeld = new Promise<void>((resolve) => (releaseFirstLook = resolve));
  let latecomer = -1;
  let latecomerLooks = 0;

  beforeAll(async () => {
    t = await startTestService();
    // As chat's rooms: any admin while the room is pooled, only the claimant once it is claimed.
    channelsOf(t.service.ctx).register(
      'race.rooms.',
      async (actor: Actor) => {
        const seen = claimedBy;
        if (actor.id === latecomer && ++latecomerLooks === 1) await firstLookHeld;
        return seen === null || seen === actor.id;
      },
      { recheckOn: ['room.claimed'] },
    );
  });
  afterAll(() => t?.stop());

  it('ends with the latecomer not subscribed, and none of the claimed room’s messages reach it', async () => {
    const channel = 'race.rooms.1';
    const [claimant, other] = [await signInAdmin(t), await signInAdmin(t, { superAdmin: false })];
    latecomer = other.admin.id;
    const first = await openSocket(t, { token: claimant.token });
    const second = await openSocket(t, { token: other.token });
    expect(await first.subscribe(channel)).toMatchObject({ type: 'subscribed' });

    const answer = second.subscribe(channel); // reads the pooled room, then waits
    await expect.poll(() => latecomerLooks).toBe(1);
    claimedBy = claimant.admin.id;
    await t.service.ctx.bus.publish(channel, { event: 'room.claimed', data: { room_id: 1 } });
    await first.next((f) => f.event === 'room.claimed');
    releaseFirstLook();
    expect(await answer).toMatchObject({ type: 'error', channel, error: 'Forbidden' });

    await t.service.ctx.bus.publish(channel, { event: 'message.created', data: { body: 'solo para quien reclamó' } });
    await first.next((f) => f.event === 'message.created');
    second.send({ type: 'ping' });
    await second.next((f) => f.type === 'pong');
    expect(second.frames.filter((f) => f.type === 'message')).toEqual([]);
    await Promise.all([first.close(), second.close()]);
  });
});
