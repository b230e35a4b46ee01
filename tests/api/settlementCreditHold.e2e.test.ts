import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import { signInClient, type SignedInDriver, type SignedInUser } from '../support/actors.js';
import { confirmedOrder, deliverOrder, onlineDriver, orderBody } from '../support/orderFlows.js';
import { startTestService, type TestService } from '../support/testService.js';
import { must, settlementSteps } from './settlementFlows.js';

const HOUR = 3_600_000;

/**
 * The payout hold (docs/decisions/0070-credit-hold-by-redemption.md): driver money an order's credit paid for,
 * when the client got that credit by a manual adjustment less than CREDIT_PAYOUT_HOLD_HOURS (72) before it was
 * redeemed (at creation, acceptance, a payment-method change or delivery), is booked at once (in the balance),
 * but no cutoff pays it out until the credit is 72 hours old; the first cutoff after that covers it. It holds
 * a cash order's PROMO_REIMBURSEMENT and an online order's ORDER_EARNING alike.
 */
describe('settlement: the payout hold on driver money funded by fresh manual credit', () => {
  let t: TestService;
  const clock = new ManualClock('2026-11-23T16:00:00Z'); // 12:00 in Caracas: the scheduler's cutoff is not due
  beforeAll(async () => {
    t = await startTestService({ clock, env: { OFFICIAL_RATE_VES: '36.5' } });
  });
  afterAll(() => t?.stop());

  const payoutAccount = async (s: ReturnType<typeof settlementSteps>, driver: SignedInDriver) =>
    must(
      'payout config',
      await s.api.post('/wallet/me/payout-config', driver.token, {
        method: 'PAGO_MOVIL',
        bankCode: '0102',
        idNumber: 'V12345671',
        phone: '04141234567',
      }),
    );
  const manualCredit = async (s: ReturnType<typeof settlementSteps>, client: SignedInUser, amount: number) =>
    must(
      'credit',
      await s.api.post(`/admin/customers/${client.user.id}/credit/adjust`, (await s.root()).token, {
        type: 'credit',
        scope: 'ORDERS',
        amount,
        reason: 'Compensación por un pedido tardío',
      }),
    );
  /** The order created and bid on first; a minute later the credit booked; a minute later the client accepts. */
  const creditedAtAcceptance = async (
    s: ReturnType<typeof settlementSteps>,
    driver: SignedInDriver,
    body: Record<string, unknown>,
    creditUsd: number,
  ) => {
    const client = await signInClient(t);
    const created = must('order', await s.api.post('/orders', client.token, orderBody(body)), 201);
    const orderId: number = created.order.id;
    const offerId: number = must('bid', await s.api.post(`/orders/${orderId}/accept`, driver.token, {}), 201).offer.id;
    clock.advance(60_000);
    await manualCredit(s, client, creditUsd);
    clock.advance(60_000);
    const accepted = must('accept offer', await s.api.post(`/orders/offers/${offerId}/accept`, client.token), 200);
    return { client, driver, orderId, offerId, pin: accepted.order.delivery_pin as string, order: accepted.order };
  };
  const ledger = async (s: ReturnType<typeof settlementSteps>, driver: SignedInDriver) =>
    must('ledger', await s.api.get('/wallet/me/transactions?limit=100', driver.token)).items as {
      type: string;
      amount_cents: number;
    }[];

  it("holds a cash order's reimbursement when the credit came after the order, redeemed at acceptance", async () => {
    const s = settlementSteps(t);
    await s.root();
    const driver = await onlineDriver(t);
    await payoutAccount(s, driver);
    await s.credit(driver.driverId, 10);
    const f = await creditedAtAcceptance(s, driver, { basePrice: 25 }, 5);
    await deliverOrder(t, f, 2000);
    expect((await ledger(s, driver)).map((e) => e.type)).toContain('PROMO_REIMBURSEMENT');

    // 10 (adjustment) − 2.50 (cash commission) settle; the 5 reimbursement waits.
    const first = s.byDriver((await s.run('cutoff')).receipts, driver);
    expect((await s.receipt(first.id)).payable_usd).toBe(7.5);
    expect(s.byDriver((await s.run('payout')).receipts, driver).status).toBe('PAID');

    clock.advance(71 * HOUR); // 71 hours after the credit: still held
    expect((await s.run('cutoff')).receipts.some((r) => r.driver_id === driver.driverId)).toBe(false);
    clock.advance(HOUR); // 72 hours after the credit
    const second = s.byDriver((await s.run('cutoff')).receipts, driver);
    expect((await s.receipt(second.id)).payable_usd).toBe(5);
    expect(s.byDriver((await s.run('payout')).receipts, driver).status).toBe('PAID');
  });

  it("holds an online order's earning when the credit covering all of it was redeemed at acceptance", async () => {
    const s = settlementSteps(t);
    await s.root();
    const driver = await onlineDriver(t);
    await payoutAccount(s, driver);
    const f = await creditedAtAcceptance(s, driver, { basePrice: 20, paymentMethod: 'EXCHANGE_PAY' }, 25);
    // Fully covered by credit: confirmed without any payment.
    expect(f.order.status).toBe('CONFIRMED');
    await deliverOrder(t, f, 2000);
    const earning = (await ledger(s, driver)).find((e) => e.type === 'ORDER_EARNING');
    expect(earning?.amount_cents).toBeGreaterThan(0);
    const balance = (await s.wallet(driver)).balanceUSD as number;
    expect(balance * 100).toBeCloseTo(earning!.amount_cents);

    expect((await s.run('cutoff')).receipts.some((r) => r.driver_id === driver.driverId)).toBe(false);
    expect((await s.run('payout')).receipts.some((r) => r.driver_id === driver.driverId)).toBe(false);
    expect(await s.payoutsSent(driver)).toEqual([]);

    clock.advance(71 * HOUR); // 71 hours after the credit: still held
    expect((await s.run('cutoff')).receipts.some((r) => r.driver_id === driver.driverId)).toBe(false);
    clock.advance(HOUR); // 72 hours after the credit
    const receipt = s.byDriver((await s.run('cutoff')).receipts, driver);
    expect((await s.receipt(receipt.id)).payable_usd * 100).toBeCloseTo(earning!.amount_cents);
    expect(s.byDriver((await s.run('payout')).receipts, driver).status).toBe('PAID');
  });

  it('leaves the reimbursement out of every cutoff within the hold and covers it at the first after', async () => {
    const s = settlementSteps(t);
    await s.root();
    const driver = await onlineDriver(t);
    await payoutAccount(s, driver);
    await s.credit(driver.driverId, 10);
    const client = await signInClient(t);
    await manualCredit(s, client, 5);
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
