import { describe, expect, it } from 'vitest';
import type { CreditEvent } from '../credit/events.js';
import {
  creditHistoryOf,
  creditHoldEnds,
  withoutHeldEntries,
  type CreditFundedOrder,
  type CreditHoldFacts,
} from './creditHold.js';

// Order 7 was created at 10:00 with no credit, redeemed credit at acceptance at 12:00 and was delivered at 14:00.
const order7: CreditFundedOrder = {
  clientId: 3,
  redeemedAt: ['2026-11-20T12:00:00.000Z'],
  deliveredAt: '2026-11-20T14:00:00.000Z',
};
const facts = (over: Partial<CreditHoldFacts> = {}): CreditHoldFacts => ({
  orders: new Map([[7, order7]]),
  manualCreditsAt: new Map([[3, ['2026-11-20T11:00:00.000Z']]]),
  holdHours: 72,
  now: new Date('2026-11-21T00:00:00.000Z'),
  ...over,
});
const reimbursement = { type: 'PROMO_REIMBURSEMENT', orderId: 7 };
const earning = { type: 'ORDER_EARNING', orderId: 7 };

describe('the payout hold on driver money funded by fresh manual credit', () => {
  it('holds the reimbursement of a cash order whose credit was booked after creation and redeemed at acceptance', () => {
    expect(creditHoldEnds(reimbursement, facts())).toEqual(new Date('2026-11-23T11:00:00.000Z'));
    expect(creditHoldEnds(reimbursement, facts({ now: new Date('2026-11-23T10:59:59.999Z') }))).not.toBeNull();
    expect(creditHoldEnds(reimbursement, facts({ now: new Date('2026-11-23T11:00:00.000Z') }))).toBeNull();
  });

  it('holds the earning of an online or surplus order the credit paid for, whatever its payment method', () => {
    expect(creditHoldEnds(earning, facts())).toEqual(new Date('2026-11-23T11:00:00.000Z'));
    expect(creditHoldEnds({ type: 'SURPLUS_EARNING', orderId: 7 }, facts())).toEqual(
      new Date('2026-11-23T11:00:00.000Z'),
    );
  });

  it('never holds a debit or an entry without an order, nor an order credit did not pay for', () => {
    expect(creditHoldEnds({ type: 'CASH_COMMISSION_DEBT', orderId: 7 }, facts())).toBeNull();
    expect(creditHoldEnds({ type: 'MANUAL_ADJUSTMENT', orderId: null }, facts())).toBeNull();
    expect(creditHoldEnds({ type: 'ORDER_EARNING', orderId: 8 }, facts())).toBeNull();
  });

  it('counts credit booked between the last redemption and the delivery that spends it', () => {
    const late = facts({ manualCreditsAt: new Map([[3, ['2026-11-20T13:00:00.000Z']]]) });
    expect(creditHoldEnds(earning, late)).toEqual(new Date('2026-11-23T13:00:00.000Z'));
    const undelivered = { ...late, orders: new Map([[7, { ...order7, deliveredAt: null }]]) };
    expect(creditHoldEnds(earning, undelivered)).toBeNull();
  });

  it('ignores credit booked after every redemption and the delivery, and credit older than the hold', () => {
    const after = facts({ manualCreditsAt: new Map([[3, ['2026-11-20T14:00:00.001Z']]]) });
    expect(creditHoldEnds(earning, after)).toBeNull();
    const older = facts({ manualCreditsAt: new Map([[3, ['2026-11-17T14:00:00.000Z']]]) });
    expect(creditHoldEnds(earning, older)).toBeNull();
    const justInside = facts({
      manualCreditsAt: new Map([[3, ['2026-11-17T14:00:00.001Z']]]),
      now: new Date('2026-11-20T14:00:00.000Z'),
    });
    expect(creditHoldEnds(earning, justInside)).toEqual(new Date('2026-11-20T14:00:00.001Z'));
  });

  it('judges each redemption on its own: credit fresh at an earlier one still holds', () => {
    const repriced: CreditFundedOrder = {
      ...order7,
      redeemedAt: ['2026-11-20T12:00:00.000Z', '2026-11-24T12:00:00.000Z'],
      deliveredAt: '2026-11-24T13:00:00.000Z',
    };
    const f = facts({ orders: new Map([[7, repriced]]), now: new Date('2026-11-23T00:00:00.000Z') });
    expect(creditHoldEnds(earning, f)).toEqual(new Date('2026-11-23T11:00:00.000Z'));
  });

  it('takes the latest credit in reach, and leaves the other entries to settle', () => {
    const two = facts({ manualCreditsAt: new Map([[3, ['2026-11-18T13:00:00.000Z', '2026-11-20T11:30:00.000Z']]]) });
    expect(creditHoldEnds(reimbursement, two)).toEqual(new Date('2026-11-23T11:30:00.000Z'));
    const debt = { type: 'CASH_COMMISSION_DEBT', orderId: 7 };
    expect(withoutHeldEntries([debt, reimbursement, earning], facts())).toEqual([debt]);
  });
});

describe("what a client's credit stream tells the hold", () => {
  const buckets = { ANY: 0, ORDERS: 0, SURPLUS: 0 };
  const adjusted = (direction: 'CREDIT' | 'DEBIT', at: string): CreditEvent => ({
    type: 'CreditAdjusted',
    data: {
      clientId: 3,
      adminId: 1,
      direction,
      scope: 'ANY',
      amountCents: 500,
      reason: 'Compensación',
      balanceAfterCents: 500,
      adjustedAt: at,
    },
  });
  const redeemed = (orderId: number, at: string): CreditEvent => ({
    type: 'CreditRedeemed',
    data: {
      clientId: 3,
      orderId,
      kind: 'order',
      amountCents: 500,
      split: buckets,
      balancesAfter: buckets,
      redeemedAt: at,
    },
  });
  const refunded = (orderId: number, at: string): CreditEvent => ({
    type: 'CreditRefunded',
    data: {
      clientId: 3,
      orderId,
      amountCents: 500,
      split: buckets,
      balancesAfter: buckets,
      reason: 'ORDER_REPRICED',
      refundedAt: at,
    },
  });

  it('lists manual credits (not debits) and every redemption of the orders credit still pays for', () => {
    const history = creditHistoryOf([
      adjusted('CREDIT', '2026-11-20T10:00:00.000Z'),
      adjusted('DEBIT', '2026-11-20T10:30:00.000Z'),
      redeemed(7, '2026-11-20T11:00:00.000Z'),
      refunded(7, '2026-11-20T12:00:00.000Z'),
      redeemed(7, '2026-11-20T12:00:00.000Z'),
      redeemed(8, '2026-11-20T13:00:00.000Z'),
      refunded(8, '2026-11-20T14:00:00.000Z'),
    ]);
    expect(history.manualCreditsAt).toEqual(['2026-11-20T10:00:00.000Z']);
    expect([...history.redeemedAt]).toEqual([[7, ['2026-11-20T11:00:00.000Z', '2026-11-20T12:00:00.000Z']]]);
  });
});
