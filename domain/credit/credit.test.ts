import { describe, expect, it } from 'vitest';
import { fold } from '../decider.js';
import { errorOf } from '../../tests/support/deciderSpec.js';
import {
  creditSummary,
  creditUsableForOrder,
  decide,
  evolve,
  initialState,
  redeemedForOrder,
  usableCredit,
} from './credit.js';
import type { CreditCommand, CreditState } from './credit.js';
import type { CreditBucket, CreditKind } from './events.js';

const now = new Date('2026-01-01T12:00:00.000Z');
const CLIENT = 7;

const grant = (scope: CreditBucket, amountCents: number, grantId = amountCents): CreditCommand => ({
  type: 'GrantCredit',
  clientId: CLIENT,
  grantId,
  promotionId: 3,
  orderId: null,
  scope,
  amountCents,
  now,
});
const adjust = (
  direction: 'CREDIT' | 'DEBIT',
  scope: CreditBucket,
  amountCents: number,
  reason = 'Goodwill after a late delivery',
): CreditCommand => ({
  type: 'AdjustCredit',
  clientId: CLIENT,
  adminId: 1,
  direction,
  scope,
  amountCents,
  reason,
  now,
});
const redeem = (orderId: number, amountCents: number, kind: CreditKind = 'order'): CreditCommand => ({
  type: 'RedeemCredit',
  clientId: CLIENT,
  orderId,
  kind,
  amountCents,
  now,
});
const refund = (orderId: number): CreditCommand => ({
  type: 'RefundCredit',
  clientId: CLIENT,
  orderId,
  reason: 'ORDER_CANCELLED',
  now,
});

const given = (...commands: CreditCommand[]): CreditState =>
  commands.reduce((s, c) => fold(evolve, s, decide(c, s)), initialState);
const after = (s: CreditState, cmd: CreditCommand) => fold(evolve, s, decide(cmd, s));

describe('grants and adjustments', () => {
  it('grants promotion credit into its bucket, once per grant', () => {
    const [e] = decide(grant('ORDERS', 500), initialState);
    expect(e).toEqual({
      type: 'CreditGranted',
      data: {
        clientId: CLIENT,
        grantId: 500,
        promotionId: 3,
        orderId: null,
        scope: 'ORDERS',
        amountCents: 500,
        balanceAfterCents: 500,
        grantedAt: now.toISOString(),
      },
    });
    const s = fold(evolve, initialState, [e]);
    expect(decide(grant('ORDERS', 500), s)).toEqual([]);
  });

  it('adjusts up and down; a debit may leave a bucket negative', () => {
    const s = given(adjust('CREDIT', 'ANY', 300));
    const [e] = decide(adjust('DEBIT', 'ANY', 500), s);
    expect(e.data).toMatchObject({ direction: 'DEBIT', amountCents: 500, balanceAfterCents: -200 });
    expect(fold(evolve, s, [e]).balances.ANY).toBe(-200);
  });

  it('validates the amount and the reason (422)', () => {
    expect(errorOf(() => decide(adjust('CREDIT', 'ANY', 0), initialState))).toMatchObject({
      code: 'ValidationError',
      details: { fieldErrors: { amount: expect.any(Array) } },
    });
    expect(errorOf(() => decide(adjust('CREDIT', 'ANY', 100, 'short'), initialState))).toMatchObject({
      code: 'ValidationError',
      details: { fieldErrors: { reason: expect.any(Array) } },
    });
  });
});

describe('usable credit', () => {
  it('is the scoped bucket plus ANY; negative buckets offer nothing', () => {
    const s = given(grant('ANY', 1000), grant('ORDERS', 300), grant('SURPLUS', 200));
    expect(usableCredit(s, 'order')).toBe(1300);
    expect(usableCredit(s, 'surplus')).toBe(1200);
    const debited = after(s, adjust('DEBIT', 'ORDERS', 500));
    expect(usableCredit(debited, 'order')).toBe(1000);
  });
});

describe('RedeemCredit', () => {
  const funded = () => given(grant('ANY', 1000), grant('ORDERS', 300), grant('SURPLUS', 200));

  it('spends the scoped bucket first, then ANY', () => {
    const [e] = decide(redeem(1, 500), funded());
    expect(e).toEqual({
      type: 'CreditRedeemed',
      data: {
        clientId: CLIENT,
        orderId: 1,
        kind: 'order',
        amountCents: 500,
        split: { ANY: 200, ORDERS: 300, SURPLUS: 0 },
        balancesAfter: { ANY: 800, ORDERS: 0, SURPLUS: 200 },
        redeemedAt: now.toISOString(),
      },
    });
    expect(decide(redeem(2, 250, 'surplus'), funded())[0].data).toMatchObject({
      split: { ANY: 50, ORDERS: 0, SURPLUS: 200 },
    });
  });

  it('refuses more than is usable (409 InsufficientCredit)', () => {
    expect(errorOf(() => decide(redeem(1, 1301), funded()))).toMatchObject({
      kind: 'conflict',
      code: 'InsufficientCredit',
      details: { usableCents: 1300 },
    });
  });

  it('is idempotent per order', () => {
    const s = after(funded(), redeem(1, 500));
    expect(decide(redeem(1, 500), s)).toEqual([]);
    expect(decide(redeem(2, 0), s)).toEqual([]);
  });

  it('replaces an earlier redemption of the same order: refund, then redeem the new amount', () => {
    const s = after(funded(), redeem(1, 500));
    const events = decide(redeem(1, 1200), s);
    expect(events.map((e) => e.type)).toEqual(['CreditRefunded', 'CreditRedeemed']);
    expect(events[0].data).toMatchObject({
      amountCents: 500,
      reason: 'ORDER_REPRICED',
      balancesAfter: { ANY: 1000, ORDERS: 300, SURPLUS: 200 },
    });
    expect(events[1].data).toMatchObject({ amountCents: 1200, split: { ANY: 900, ORDERS: 300, SURPLUS: 0 } });
    const next = fold(evolve, s, events);
    expect(next.balances).toEqual({ ANY: 100, ORDERS: 0, SURPLUS: 200 });
    expect(redeemedForOrder(next, 1)).toBe(1200);
    const toZero = decide(redeem(1, 0), next);
    expect(toZero.map((e) => e.type)).toEqual(['CreditRefunded']);
    expect(fold(evolve, next, toZero).balances).toEqual({ ANY: 1000, ORDERS: 300, SURPLUS: 200 });
  });

  it('prices an order with its own redemption counted back in', () => {
    const s = after(funded(), redeem(1, 500));
    expect(usableCredit(s, 'order')).toBe(800);
    expect(creditUsableForOrder(s, 'order', 1)).toBe(1300);
    expect(creditUsableForOrder(s, 'order', 2)).toBe(800);
    expect(decide(redeem(1, 1300), s).map((e) => e.type)).toEqual(['CreditRefunded', 'CreditRedeemed']);
  });
});

describe('RefundCredit', () => {
  it('gives the whole redemption back to its buckets, once', () => {
    const s = given(grant('ANY', 1000), grant('ORDERS', 300), redeem(1, 500));
    const [e] = decide(refund(1), s);
    expect(e.data).toMatchObject({
      orderId: 1,
      amountCents: 500,
      split: { ANY: 200, ORDERS: 300, SURPLUS: 0 },
      reason: 'ORDER_CANCELLED',
    });
    const refunded = fold(evolve, s, [e]);
    expect(refunded.balances).toEqual({ ANY: 1000, ORDERS: 300, SURPLUS: 0 });
    expect(decide(refund(1), refunded)).toEqual([]);
    expect(decide(refund(9), refunded)).toEqual([]);
  });
});

describe('creditSummary', () => {
  it('sums what was earned and what is redeemed', () => {
    const s = given(
      grant('ANY', 1000),
      adjust('CREDIT', 'SURPLUS', 200),
      adjust('DEBIT', 'ANY', 100),
      redeem(1, 400),
      redeem(2, 300),
      refund(2),
    );
    expect(creditSummary(s)).toEqual({
      anyCents: 500,
      ordersCents: 0,
      surplusCents: 200,
      usableOnOrdersCents: 500,
      usableOnSurplusCents: 700,
      earnedCents: 1200,
      redeemedCents: 400,
    });
  });
});

describe('the books always balance', () => {
  it('balances = credits − debits − live redemptions, and every balancesAfter matches the fold', () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const buckets: CreditBucket[] = ['ANY', 'ORDERS', 'SURPLUS'];
    let s = initialState;
    let credited = 0;
    let debited = 0;
    for (let i = 0; i < 2000; i++) {
      const orderId = rand(8);
      const kind: CreditKind = orderId % 2 ? 'order' : 'surplus';
      const roll = rand(10);
      const cmd =
        roll < 2
          ? grant(buckets[rand(3)], 1 + rand(1000), i)
          : roll < 3
            ? adjust(rand(2) ? 'CREDIT' : 'DEBIT', buckets[rand(3)], 1 + rand(300))
            : roll < 8
              ? redeem(orderId, rand(creditUsableForOrder(s, kind, orderId) + 1), kind)
              : refund(orderId);
      const events = decide(cmd, s);
      for (const e of events) {
        s = evolve(s, e);
        if (e.type === 'CreditRedeemed' || e.type === 'CreditRefunded')
          expect(e.data.balancesAfter).toEqual(s.balances);
        if (e.type === 'CreditGranted') credited += e.data.amountCents;
        if (e.type === 'CreditAdjusted') {
          if (e.data.direction === 'CREDIT') credited += e.data.amountCents;
          else debited += e.data.amountCents;
        }
        if (e.type === 'CreditGranted' || e.type === 'CreditAdjusted')
          expect(e.data.balanceAfterCents).toBe(s.balances[e.data.scope]);
      }
      const total = s.balances.ANY + s.balances.ORDERS + s.balances.SURPLUS;
      expect(total).toBe(credited - debited - creditSummary(s).redeemedCents);
    }
  });
});
