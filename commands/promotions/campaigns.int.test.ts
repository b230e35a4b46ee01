import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promotionDecider, type GrantMilestone, type PromotionCommand } from '../../domain/promotion/campaign.js';
import { promotionStream, type PromotionTerms } from '../../domain/promotion/events.js';
import { DomainError } from '../../domain/errors.js';
import { spec } from '../../tests/support/deciderSpec.js';
import { sampleTerms } from '../../tests/support/promotionTerms.js';
import { streamsOnEmbedded, type StreamsUnderTest } from '../../tests/support/streams.js';
import { createHandle, type Handle } from '../handle.js';

/**
 * A campaign's stream serialises what races on it (against a real event store, a test database of the embedded PostgreSQL): two
 * deliveries for the last grant under a cap, and an admin's edit of the terms against a first grant.
 */

const NOW = new Date('2026-05-10T12:00:00.000Z');
const terms = sampleTerms({ creditScope: 'ANY', milestoneOrders: 1, amountCents: 100 });
const created = (promotionId: number, over: Partial<PromotionTerms> = {}) =>
  spec(promotionDecider).history([
    {
      type: 'CreatePromotion',
      promotionId,
      terms: { ...terms, ...over },
      cityKnown: true,
      now: new Date('2026-05-01T00:00:00Z'),
    },
  ]);
const grant = (userId: number): GrantMilestone => ({
  type: 'GrantMilestone',
  grantId: userId,
  userId,
  driverId: null,
  orderId: 500 + userId,
  cityId: 1,
  deliveredAt: NOW,
  countedDeliveries: 1,
  now: NOW,
});

let t: StreamsUnderTest;
let handle: Handle;
beforeAll(async () => {
  t = await streamsOnEmbedded();
  handle = createHandle(t.store);
});
afterAll(() => t?.close());

const run = (promotionId: number, cmd: PromotionCommand) => handle(promotionDecider, promotionStream(promotionId), cmd);

describe('a campaign’s stream under concurrent commands', () => {
  it('grants the last place under a cap once when five deliveries race for it', async () => {
    await t.existingStream(promotionStream(1), created(1, { maxGrants: 1 }));
    await Promise.all([1, 2, 3, 4, 5].map((user) => run(1, grant(user))));
    const granted = (await t.store.readStream(promotionStream(1))).filter((e) => e.type === 'PromotionGranted');
    expect(granted).toHaveLength(1);
  });

  it(
    'a first grant and an edit of the frozen terms: either ' + 'the edit lands before the grant, or it is refused',
    async () => {
      await t.existingStream(promotionStream(2), created(2));
      const edit = run(2, {
        type: 'UpdatePromotion',
        changes: { amountCents: 900 },
        sentFields: ['amount_usd'],
        cityKnown: true,
        now: NOW,
      }).then(
        () => 'edited',
        (err: unknown) => (err instanceof DomainError ? err.code : 'unexpected'),
      );
      const [outcome] = await Promise.all([edit, run(2, grant(9))]);
      const events = await t.store.readStream(promotionStream(2));
      const grantedAmount = (events.find((e) => e.type === 'PromotionGranted')?.data as { amountCents: number })
        .amountCents;
      // The grant paid the terms as they stood when it was decided; an edit after it was refused.
      if (outcome === 'edited')
        expect(events.map((e) => e.type)).toEqual(['PromotionCreated', 'PromotionUpdated', 'PromotionGranted']);
      else expect(outcome).toBe('PromotionAlreadyGranted');
      expect(grantedAmount).toBe(outcome === 'edited' ? 900 : 100);
    },
  );
});
