import { describe, expect, it } from 'vitest';
import { promotionDecider, type PromotionCommand, type PromotionState } from '../../domain/promotion/campaign.js';
import type { PromotionGrantedData, PromotionTerms } from '../../domain/promotion/events.js';
import { spec } from '../../tests/support/deciderSpec.js';
import { sampleTerms } from '../../tests/support/promotionTerms.js';
import { derivedEventId } from '../origin.js';
import type { Cause } from '../processManager.js';
import { grantReactions, type GrantCandidate } from './milestoneGrants.js';

/**
 * The grants' reactions: given the campaigns a delivery may grant,
 * when the delivery, then these commands; a grant pays out.
 */

const NOW = new Date('2026-05-10T12:00:05.000Z');
const DELIVERED = new Date('2026-05-10T12:00:00.000Z');

const campaignWith = (
  promotionId: number,
  over: Partial<PromotionTerms> = {},
  ...past: PromotionCommand[]
): PromotionState =>
  spec(promotionDecider)
    .givenCommands(
      {
        type: 'CreatePromotion',
        promotionId,
        terms: sampleTerms(over),
        cityKnown: true,
        now: new Date('2026-05-01T00:00:00Z'),
      },
      ...past,
    )
    .state();

const delivery: Cause = {
  eventId: 'delivery-1',
  type: 'OrderDelivered',
  streamId: 'order-31',
  data: { orderId: 31, clientId: 5, driverId: 8 },
};

const candidate = (
  promotionId: number,
  campaign: PromotionState,
  over: Partial<GrantCandidate['facts']> = {},
  grantId: number | null = 70,
): GrantCandidate => ({
  promotionId,
  campaign,
  grantId,
  facts: { userId: 5, driverId: null, orderId: 31, cityId: 1, deliveredAt: DELIVERED, countedDeliveries: 2, ...over },
});

describe('milestone grants: a delivery', () => {
  it('sends each campaign whose milestone the recipient reached a GrantMilestone, with the minted grant id', () => {
    const sends = grantReactions(
      delivery,
      [candidate(3, campaignWith(3)), candidate(4, campaignWith(4), { countedDeliveries: 1 })],
      NOW,
    );
    expect(sends.map((s) => ({ streamId: s.streamId, command: s.command }))).toEqual([
      {
        streamId: 'promotion-3',
        command: {
          type: 'GrantMilestone',
          grantId: 70,
          userId: 5,
          driverId: null,
          orderId: 31,
          cityId: 1,
          deliveredAt: DELIVERED,
          countedDeliveries: 2,
          now: NOW,
        },
      },
    ]);
  });

  it('sends nothing to a campaign that already granted the recipient, is capped or has no grant id', () => {
    const grantedTo5 = campaignWith(
      3,
      {},
      {
        type: 'GrantMilestone',
        grantId: 60,
        userId: 5,
        driverId: null,
        orderId: 30,
        cityId: 1,
        deliveredAt: DELIVERED,
        countedDeliveries: 2,
        now: NOW,
      },
    );
    const capped = campaignWith(
      4,
      { maxGrants: 1 },
      {
        type: 'GrantMilestone',
        grantId: 61,
        userId: 6,
        driverId: null,
        orderId: 29,
        cityId: 1,
        deliveredAt: DELIVERED,
        countedDeliveries: 2,
        now: NOW,
      },
    );
    expect(
      grantReactions(
        delivery,
        [candidate(3, grantedTo5), candidate(4, capped), candidate(5, campaignWith(5), {}, null)],
        NOW,
      ),
    ).toEqual([]);
  });

  it('tells the client’s and the driver’s campaigns apart: two commands, two purposes', () => {
    const sends = grantReactions(
      delivery,
      [
        candidate(3, campaignWith(3)),
        candidate(4, campaignWith(4, { audience: 'DRIVER', creditScope: null }), { userId: 80, driverId: 8 }),
      ],
      NOW,
    );
    expect(sends.map((s) => s.purpose)).toEqual(['promotion-3/grant/5', 'promotion-4/grant/80']);
  });
});

describe('milestone grants: a grant pays out', () => {
  const granted = (over: Partial<PromotionGrantedData> = {}): Cause => ({
    eventId: 'grant-event-1',
    type: 'PromotionGranted',
    streamId: 'promotion-3',
    data: {
      promotionId: 3,
      grantId: 70,
      audience: 'CLIENT',
      userId: 5,
      driverId: null,
      orderId: 31,
      creditScope: 'ORDERS',
      amountCents: 500,
      grantedAt: NOW.toISOString(),
      ...over,
    },
  });

  it('a client’s grant is PROMO_GRANT credit in the campaign’s scope, with ids that follow from the grant', () => {
    const [credit, ...rest] = grantReactions(granted(), [], NOW);
    expect(rest).toEqual([]);
    expect(credit.streamId).toBe('credit-5');
    expect(credit.command).toEqual({
      type: 'GrantCredit',
      clientId: 5,
      grantId: 70,
      promotionId: 3,
      orderId: 31,
      scope: 'ORDERS',
      amountCents: 500,
      now: NOW,
    });
    expect(credit.eventIds?.(0, { type: 'CreditGranted', data: {} })).toBe(
      derivedEventId('promotion-grant-70', 'credit/0'),
    );
  });

  it(
    'a driver’s grant is a PROMO_BONUS entry on the driver’s ' +
      'wallet, under an entry id that follows from the grant',
    () => {
      const [bonus, ...rest] = grantReactions(
        granted({ audience: 'DRIVER', userId: 80, driverId: 8, creditScope: null }),
        [],
        NOW,
      );
      expect(rest).toEqual([]);
      expect(bonus.streamId).toBe('wallet-8');
      const entryId = derivedEventId('promotion-grant-70', 'wallet/PROMO_BONUS');
      expect(bonus.command).toMatchObject({
        type: 'RecordEntry',
        driverId: 8,
        entryId,
        ledgerType: 'PROMO_BONUS',
        direction: 'CREDIT',
        amountCents: 500,
        causeId: 'promotion-grant-70',
      });
      expect(bonus.eventIds?.(0, { type: 'LedgerEntryRecorded', data: { entryId } })).toBe(entryId);
    },
  );
});
