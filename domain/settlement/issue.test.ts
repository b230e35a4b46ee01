import { describe, expect, it } from 'vitest';
import { receiptLines, settleableEntries, type SettleableEntry } from './issue.js';

const entry = (over: Partial<SettleableEntry>): SettleableEntry => ({
  entryId: Math.random().toString(36).slice(2),
  type: 'ORDER_EARNING',
  direction: 'CREDIT',
  amountCents: 1000,
  orderId: null,
  exchangeRateAmount: null,
  description: '',
  at: '2026-11-23T10:00:00.000Z',
  order: null,
  ...over,
});

describe('cutoff: which entries a receipt covers', () => {
  const f = { coveredEntryIds: new Set<string>(), balanceCents: 1000, pendingPayoutCents: 0, minBalanceCents: 500 };
  it('settles all uncovered entries when they reach the minimum', () => {
    const es = [entry({ entryId: 'a', amountCents: 600 }), entry({ entryId: 'b', amountCents: 400 })];
    expect(settleableEntries(es, f).map((e) => e.entryId)).toEqual(['a', 'b']);
  });
  it('settles nothing below the minimum, nor beyond withdrawable, nor covered entries or PAYOUT_SENT', () => {
    expect(settleableEntries([entry({ amountCents: 499 })], { ...f, balanceCents: 499 })).toEqual([]);
    expect(settleableEntries([entry({ amountCents: 1000 })], { ...f, pendingPayoutCents: 600 })).toEqual([]);
    expect(settleableEntries([entry({ entryId: 'a' })], { ...f, coveredEntryIds: new Set(['a']) })).toEqual([]);
    expect(settleableEntries([entry({ type: 'PAYOUT_SENT', direction: 'DEBIT' })], f)).toEqual([]);
  });
});

describe('cutoff: lines and totals', () => {
  it(
    'one ORDER line per order, cash orders net to minus the ' +
      'commission, adjustments apart; tax-inclusive commission',
    () => {
      const online = { priceCents: 2000, commissionCents: 200, deliveredAt: '2026-11-23T09:00:00.000Z' };
      const cash = { priceCents: 1500, commissionCents: 150, deliveredAt: '2026-11-23T11:00:00.000Z' };
      const { lines, totals } = receiptLines(
        [
          entry({
            orderId: 1,
            amountCents: 1780,
            exchangeRateAmount: '36.5',
            order: online,
            at: '2026-11-23T09:00:00.000Z',
          }),
          entry({
            orderId: 2,
            type: 'CASH_COMMISSION_DEBT',
            direction: 'DEBIT',
            amountCents: 150,
            exchangeRateAmount: '36.5',
            order: cash,
            at: '2026-11-23T11:00:00.000Z',
          }),
          entry({
            orderId: 2,
            type: 'PROMO_REIMBURSEMENT',
            amountCents: 300,
            exchangeRateAmount: '36.5',
            order: cash,
            at: '2026-11-23T11:00:01.000Z',
          }),
          entry({
            type: 'MANUAL_ADJUSTMENT',
            direction: 'DEBIT',
            amountCents: 100,
            description: 'ajuste',
            at: '2026-11-23T12:00:00.000Z',
          }),
        ],
        16,
        '40.00',
      );
      expect(lines.map((l) => [l.lineNumber, l.type, l.orderId, l.netCents, l.commissionCents])).toEqual([
        [1, 'ORDER', 1, 1780, -200],
        [2, 'ORDER', 2, -150, -150],
        [3, 'ADJUSTMENT', null, 300, 0],
        [4, 'ADJUSTMENT', null, -100, 0],
      ]);
      expect(lines[0].totalBsCents).toBe(Math.round(1780 * 36.5));
      // ADJUSTMENT lines (a promotion's reimbursement included) take the official rate at the cutoff.
      expect(lines.map((l) => [l.exchangeRateAmount, l.totalBsCents])).toEqual([
        ['36.5', 64970],
        ['36.5', -5475],
        ['40.00', 12000],
        ['40.00', -4000],
      ]);
      expect(totals.netBsCents).toBe(64970 - 5475 + 12000 - 4000);
      expect(totals).toMatchObject({
        netCents: 1830,
        payableCents: 1830,
        commissionCents: -350,
        remunerationTotalCents: 350,
        ivaCents: 48,
        remunerationBaseCents: 302,
        subtotalCents: 3500,
      });
    },
  );

  it('an online order, a cash order and a credit: the bolivars pay the whole payable, every line at its rate', () => {
    // 53.46 online, a cash order netting -5.00, a 2.50 manual credit: payable 50.96 USD.
    const { lines, totals } = receiptLines(
      [
        entry({
          orderId: 1,
          amountCents: 5346,
          exchangeRateAmount: '36.50',
          order: { priceCents: 6000, commissionCents: 654, deliveredAt: null },
        }),
        entry({
          orderId: 2,
          type: 'CASH_COMMISSION_DEBT',
          direction: 'DEBIT',
          amountCents: 500,
          exchangeRateAmount: '36.50',
          order: { priceCents: 5000, commissionCents: 500, deliveredAt: null },
        }),
        entry({ type: 'MANUAL_ADJUSTMENT', amountCents: 250 }),
      ],
      16,
      '36.50',
    );
    expect(totals.payableCents).toBe(5096);
    expect(lines.every((l) => typeof l.exchangeRateAmount === 'string')).toBe(true);
    expect(totals.netBsCents).toBe(lines.reduce((s, l) => s + l.totalBsCents, 0));
    expect(totals.netBsCents).toBe(Math.round(5096 * 36.5));
  });
});
