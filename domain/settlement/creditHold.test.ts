import { describe, expect, it } from 'vitest';
import { creditHoldEnds, withoutHeldReimbursements, type CreditHoldFacts } from './creditHold.js';

const facts = (over: Partial<CreditHoldFacts> = {}): CreditHoldFacts => ({
  orders: new Map([[7, { clientId: 3, createdAt: '2026-11-20T12:00:00.000Z' }]]),
  manualCreditsAt: new Map([[3, ['2026-11-20T10:00:00.000Z']]]),
  holdHours: 72,
  now: new Date('2026-11-21T00:00:00.000Z'),
  ...over,
});
const reimbursement = { type: 'PROMO_REIMBURSEMENT', orderId: 7 };

describe('the payout hold on reimbursements of orders funded by fresh manual credit', () => {
  it('holds a reimbursement until the credit before its order is 72 hours old', () => {
    expect(creditHoldEnds(reimbursement, facts())).toEqual(new Date('2026-11-23T10:00:00.000Z'));
    expect(creditHoldEnds(reimbursement, facts({ now: new Date('2026-11-23T09:59:59.999Z') }))).not.toBeNull();
    expect(creditHoldEnds(reimbursement, facts({ now: new Date('2026-11-23T10:00:00.000Z') }))).toBeNull();
  });

  it('holds only reimbursements, and only for credit received less than the hold before the order', () => {
    expect(creditHoldEnds({ type: 'ORDER_EARNING', orderId: 7 }, facts())).toBeNull();
    expect(creditHoldEnds({ type: 'PROMO_REIMBURSEMENT', orderId: 8 }, facts())).toBeNull();
    const older = facts({ manualCreditsAt: new Map([[3, ['2026-11-17T12:00:00.000Z']]]) });
    expect(creditHoldEnds(reimbursement, older)).toBeNull();
    const after = facts({ manualCreditsAt: new Map([[3, ['2026-11-20T12:00:00.001Z']]]) });
    expect(creditHoldEnds(reimbursement, after)).toBeNull();
  });

  it('takes the latest credit in the window, and leaves the other entries to settle', () => {
    const two = facts({ manualCreditsAt: new Map([[3, ['2026-11-18T13:00:00.000Z', '2026-11-20T11:00:00.000Z']]]) });
    expect(creditHoldEnds(reimbursement, two)).toEqual(new Date('2026-11-23T11:00:00.000Z'));
    const earning = { type: 'ORDER_EARNING', orderId: 7 };
    expect(withoutHeldReimbursements([earning, reimbursement], facts())).toEqual([earning]);
  });
});
