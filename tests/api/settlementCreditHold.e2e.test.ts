import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import { signInClient } from '../support/actors.js';
import { confirmedOrder, deliverOrder, onlineDriver } from '../support/orderFlows.js';
import { startTestService, type TestService } from '../support/testService.js';
import { must, settlementSteps } from './settlementFlows.js';

const HOUR = 3_600_000;

/**
 * The payout hold (docs/decisions/0046-money-risk-limits.md): an order paid with credit that its client
 * got by a manual adjustment less than CREDIT_PAYOUT_HOLD_HOURS (72) before the order reimburses the driver
 * at once (PROMO_REIMBURSEMENT, in the balance), but no cutoff pays that entry out until the credit is 72
 * hours old; the first cutoff after that covers it.
 */
describe('settlement: the payout hold on reimbursements funded by fresh manual credit', () => {
  let t: TestService;
  const clock = new ManualClock('2026-11-23T16:00:00Z'); // 12:00 in Caracas: the scheduler's cutoff is not due
  beforeAll(async () => {
    t = await startTestService({ clock, env: { OFFICIAL_RATE_VES: '36.5' } });
  });
  afterAll(() => t?.stop());

  it('leaves the reimbursement out of every cutoff within the hold and covers it at the first after', async () => {
    const s = settlementSteps(t);
    const root = await s.root();
    const driver = await onlineDriver(t);
    must(
      'payout config',
      await s.api.post('/wallet/me/payout-config', driver.token, {
        method: 'PAGO_MOVIL',
        bankCode: '0102',
        idNumber: 'V12345671',
        phone: '04141234567',
      }),
    );
    await s.credit(driver.driverId, 10);
    const client = await signInClient(t);
    must(
      'credit',
      await s.api.post(`/admin/customers/${client.user.id}/credit/adjust`, root.token, {
        type: 'credit',
        scope: 'ORDERS',
        amount: 5,
        reason: 'Compensación por un pedido tardío',
      }),
    );
    clock.advance(HOUR);
    const f = await confirmedOrder(t, { client, driver, body: { basePrice: 25 } });
    await deliverOrder(t, f, 2000);

    // 10 (adjustment) + 5 (reimbursement) − 2.50 (cash commission): the balance counts the held entry.
    const first = s.byDriver((await s.run('cutoff')).receipts, driver);
    expect((await s.receipt(first.id)).payable_usd).toBe(7.5);
    expect(await s.wallet(driver)).toMatchObject({ balanceUSD: 12.5, pendingPayoutUSD: 7.5, withdrawableUSD: 5 });

    clock.advance(70 * HOUR); // 71 hours after the credit: still held
    expect((await s.run('cutoff')).receipts.some((r) => r.driver_id === driver.driverId)).toBe(false);

    clock.advance(HOUR); // 72 hours after the credit
    const second = s.byDriver((await s.run('cutoff')).receipts, driver);
    expect((await s.receipt(second.id)).payable_usd).toBe(5);
    expect(await s.wallet(driver)).toMatchObject({ balanceUSD: 12.5, pendingPayoutUSD: 12.5, withdrawableUSD: 0 });
  });
});
