import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reactToDelivery } from '../../commands/wallet/walletReactions.js';
import { walletStream } from '../../domain/wallet/events.js';
import { ManualClock } from '../../infra/clock.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import { signInAdmin, signInClient, type SignedInAdmin, type SignedInDriver } from '../support/actors.js';
import { arrive, call, confirmedOrder, onlineDriver, orderBody } from '../support/orderFlows.js';
import { startTestService, type TestResponse, type TestService } from '../support/testService.js';

/**
 * The wallet over HTTP. The scheduler does not run by itself here: `tick()` runs the wallet's catch-up
 * (deliveries → entries) when a test says so, so redeliveries and races are the test's own.
 * CASH_DEBT_CAP_USD is 1000: a cash order of 10 000 USD (commission 1 000) reaches it in one delivery.
 */
describe('wallet', () => {
  let t: TestService;
  let api: ReturnType<typeof call>;
  let root: SignedInAdmin;
  beforeAll(async () => {
    t = await startTestService({ clock: new ManualClock(), env: { OFFICIAL_RATE_VES: '36.5', CASH_DEBT_CAP_USD: '1000' }, roles: ['api', 'projector', 'gateway'] });
    api = call(t);
    root = await signInAdmin(t);
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
  });

  const tick = () => t.service.ctx.scheduler.tick();
  const must = (what: string, r: TestResponse, status: number) => {
    if (r.status !== status) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };

  /** A cash order (the default method) of `basePrice` USD delivered by `driver`; returns the order id. */
  const deliverCash = async (driver: SignedInDriver, basePrice = 25): Promise<number> => {
    const f = await confirmedOrder(t, { driver, body: { basePrice } });
    await arrive(t, f);
    must('deliver', await api.post(`/orders/${f.orderId}/deliver`, driver.token, { actualLiters: 2000, deliveryPin: f.pin }), 200);
    return f.orderId;
  };

  /** An order paid by immediate bank debit, then delivered. */
  const deliverOnline = async (driver: SignedInDriver, basePrice = 25): Promise<number> => {
    const client = await signInClient(t);
    const orderId: number = must('POST /orders', await api.post('/orders', client.token, orderBody({ paymentMethod: 'PAYPROV_DI', basePrice })), 201).order.id;
    const offer = must('bid', await api.post(`/orders/${orderId}/accept`, driver.token, {}), 201).offer;
    must('accept', await api.post(`/orders/offers/${offer.id}/accept`, client.token), 200);
    const payer = { bank_code: '0102', id_number: 'V12345678', phone: '04141234567', name: 'Ana Pérez' };
    must('prepare', await api.post(`/orders/${orderId}/payment/prepare`, client.token, payer), 200);
    must('report', await api.post(`/orders/${orderId}/payment/report`, client.token, { ...payer, otp: '123456' }), 200);
    const order = must('GET order', await api.get(`/orders/${orderId}`, client.token), 200).order;
    const f = { client, driver, orderId, offerId: offer.id, pin: order.delivery_pin };
    await arrive(t, f);
    must('deliver', await api.post(`/orders/${orderId}/deliver`, driver.token, { actualLiters: 2000, deliveryPin: f.pin }), 200);
    return orderId;
  };

  const ledger = async (driver: SignedInDriver, query = '') => must('ledger', await api.get(`/wallet/me/transactions${query}`, driver.token), 200);
  const balance = async (driver: SignedInDriver) => must('wallet', await api.get('/wallet/me', driver.token), 200);
  const adjust = (driverId: number, body: Record<string, unknown>, token = root.token) => api.post(`/admin/drivers/${driverId}/wallet/adjustments`, token, body);
  const deliveredEvents = async (orderIds: number[]): Promise<RecordedEvent[]> =>
    (await Promise.all(orderIds.map((id) => t.service.ctx.store.readStream(`order-${id}`)))).map((events) => events.find((e) => e.type === 'OrderDelivered')!);

  describe('GET /wallet/me', () => {
    it('creates a driver’s wallet on first access and answers the balance summary', async () => {
      const driver = await onlineDriver(t);
      expect(await t.service.ctx.store.readStream(walletStream(driver.driverId))).toEqual([]);
      expect(await balance(driver)).toEqual({ balanceUSD: 0, pendingPayoutUSD: 0, withdrawableUSD: 0, cashDebtUSD: 0, cashDebtCapUSD: 1000, canGoOnline: true });
      await balance(driver);
      expect((await t.service.ctx.store.readStream(walletStream(driver.driverId))).map((e) => e.type)).toEqual(['WalletOpened']);
    });

    it('a client has no wallet: zeros, cannot go online, an empty ledger, no payout account; 401 without a token', async () => {
      const client = await signInClient(t);
      expect(await balance(client as SignedInDriver)).toEqual({ balanceUSD: 0, pendingPayoutUSD: 0, withdrawableUSD: 0, cashDebtUSD: 0, cashDebtCapUSD: 1000, canGoOnline: false });
      expect(await ledger(client as SignedInDriver)).toEqual({ items: [], next_cursor: null, has_more: false });
      expect(must('config', await api.get('/wallet/me/payout-config', client.token), 200)).toEqual({ config: null });
      const set = await api.post('/wallet/me/payout-config', client.token, { method: 'BANK_TRANSFER', accountNumber: '0102' });
      expect([set.status, set.body.error]).toEqual([400, 'NoDriverProfile']);
      expect((await api.get('/driver/wallet/transactions', client.token)).status).toBe(403);
      expect((await api.put('/driver/payout-method', client.token, { method: 'BANK_TRANSFER', accountNumber: '0102' })).status).toBe(403);
      for (const path of ['/wallet/me', '/wallet/me/transactions', '/wallet/me/payout-config']) expect((await api.get(path)).status).toBe(401);
    });

    it('a driver who is not ACTIVE cannot go online', async () => {
      const { signInDriver } = await import('../support/actors.js');
      const pending = await signInDriver(t, { approved: false });
      expect((await balance(pending)).canGoOnline).toBe(false);
    });
  });

  describe('deliveries', () => {
    it('a cash delivery leaves the commission as debt, at the order’s rate snapshot, once however often it is redelivered', async () => {
      const driver = await onlineDriver(t);
      const orderId = await deliverCash(driver, 25);
      expect((await ledger(driver)).items).toEqual([]);
      await tick();
      const [cause] = await deliveredEvents([orderId]);
      for (let i = 0; i < 20; i++) await reactToDelivery(t.service.ctx, cause);
      await Promise.all([tick(), tick()]);
      const page = await ledger(driver);
      expect(page.items).toEqual([
        {
          id: expect.any(String),
          wallet_id: driver.driverId,
          order_id: orderId,
          receipt_id: null,
          type: 'CASH_COMMISSION_DEBT',
          direction: 'DEBIT',
          amount_cents: 250,
          balance_after_cents: -250,
          amount_usd: 2.5,
          balance_after_usd: -2.5,
          exchange_rate_amount: '36.50',
          description: expect.stringContaining(`#${orderId}`),
          created_at: '2026-01-01T12:00:00.000Z',
        },
      ]);
      expect(await balance(driver)).toMatchObject({ balanceUSD: -2.5, cashDebtUSD: 2.5, withdrawableUSD: 0, canGoOnline: true });
      // The alias answers the same page.
      expect(must('alias', await api.get('/driver/wallet/transactions', driver.token), 200)).toEqual(page);
    });

    it('an order paid online earns driver_receives as ORDER_EARNING', async () => {
      const driver = await onlineDriver(t);
      const orderId = await deliverOnline(driver, 25);
      await tick();
      const { items } = await ledger(driver);
      // W = 2500: driver_gross 2250, driver_solidary 1 % = 23 (rounded half away), driver_receives 2227.
      expect(items).toEqual([expect.objectContaining({ order_id: orderId, type: 'ORDER_EARNING', direction: 'CREDIT', amount_cents: 2227, balance_after_cents: 2227, exchange_rate_amount: '36.50' })]);
      expect(await balance(driver)).toMatchObject({ balanceUSD: 22.27, withdrawableUSD: 22.27, cashDebtUSD: 0 });
    });
  });

  describe('cash-debt cap', () => {
    it('a delivery that brings the debt to the cap takes the driver offline; an admin credit under the cap lets them back', async () => {
      const driver = await onlineDriver(t);
      await deliverCash(driver, 10_000);
      await tick();
      expect(await balance(driver)).toMatchObject({ balanceUSD: -1000, cashDebtUSD: 1000, canGoOnline: false });
      expect(must('me', await api.get('/me', driver.token), 200).user.driver).toMatchObject({ isOnline: false });
      const refused = await api.post('/driver/online', driver.token, { online: true });
      expect([refused.status, refused.body.error]).toEqual([409, 'NotAllowed']);

      must('credit', await adjust(driver.driverId, { direction: 'CREDIT', amount: 0.01, reason: 'Pago parcial de la deuda en efectivo' }), 201);
      expect(await balance(driver)).toMatchObject({ balanceUSD: -999.99, canGoOnline: true });
      must('online', await api.post('/driver/online', driver.token, { online: true }), 200);
    });
  });
});
