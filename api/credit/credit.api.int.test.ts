import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin, signInClient, type SignedInAdmin, type SignedInUser } from '../../tests/support/actors.js';
import { startApiUnderTest } from '../../tests/support/apiSpecification.js';
import { arrive, call, confirmedOrder, onlineDriver, orderBody } from '../../tests/support/orderFlows.js';
import type { TestService } from '../../tests/support/testService.js';

describe('customer credit', () => {
  let t: TestService;
  let api: ReturnType<typeof call>;
  let admin: SignedInAdmin;
  beforeAll(async () => {
    t = await startApiUnderTest({ clock: new ManualClock(), env: { OFFICIAL_RATE_VES: '36.5' } });
    api = call(t);
    admin = await signInAdmin(t);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const grant = async (client: SignedInUser, amount: number, scope = 'ANY', type = 'credit') => {
    const r = await api.post(`/admin/customers/${client.user.id}/credit/adjust`, admin.token, {
      type,
      scope,
      amount,
      reason: 'Compensación por un pedido tardío',
    });
    expect(r.status).toBe(200);
    return r.body.transaction;
  };
  const creditOf = async (client: SignedInUser) => (await api.get('/credit/me', client.token)).body;
  const transactions = async (client: SignedInUser, query = '') =>
    (await api.get(`/admin/customers/${client.user.id}/credit/transactions${query}`, admin.token)).body;

  it('adjusts credit from the back office and shows the summary to the customer', async () => {
    const client = await signInClient(t);
    expect(await creditOf(client)).toEqual({
      anyUSD: 0,
      ordersUSD: 0,
      surplusUSD: 0,
      usableOnOrdersUSD: 0,
      usableOnSurplusUSD: 0,
      earnedUSD: 0,
      redeemedUSD: 0,
    });
    const tx = await grant(client, 10, 'ORDERS');
    expect(tx).toMatchObject({
      type: 'MANUAL_ADJUSTMENT',
      scope: 'ORDERS',
      direction: 'CREDIT',
      amount_usd: 10,
      balance_after_usd: 10,
      order_id: null,
      promotion_id: null,
      description: 'Compensación por un pedido tardío',
    });
    expect(Number.isInteger(tx.id)).toBe(true);
    await grant(client, 2.5, 'SURPLUS');
    const debit = await grant(client, 4, 'ANY', 'debit');
    expect(debit).toMatchObject({ direction: 'DEBIT', amount_usd: 4, balance_after_usd: -4 });
    expect(await creditOf(client)).toEqual({
      anyUSD: -4,
      ordersUSD: 10,
      surplusUSD: 2.5,
      usableOnOrdersUSD: 10,
      usableOnSurplusUSD: 2.5,
      earnedUSD: 12.5,
      redeemedUSD: 0,
    });
  });

  it('validates the adjustment and who may make it', async () => {
    const client = await signInClient(t);
    const bad = await api.post(`/admin/customers/${client.user.id}/credit/adjust`, admin.token, {
      type: 'gift',
      scope: 'ALL',
      amount: 0,
      reason: 'short',
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual(['amount', 'reason', 'scope', 'type']);
    const body = { type: 'credit', amount: 1, reason: 'Una razón suficientemente larga' };
    const unknown = await api.post('/admin/customers/999999/credit/adjust', admin.token, body);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('CustomerNotFound');
    const driver = await onlineDriver(t);
    expect((await api.post(`/admin/customers/${driver.user.id}/credit/adjust`, admin.token, body)).status).toBe(404);
    expect((await api.post(`/admin/customers/${client.user.id}/credit/adjust`, client.token, body)).status).toBe(403);
    expect((await api.post(`/admin/customers/${client.user.id}/credit/adjust`, undefined, body)).status).toBe(401);
    expect((await api.get('/admin/customers/999999/credit/transactions', admin.token)).body.error).toBe(
      'CustomerNotFound',
    );
    expect(
      (await api.get(`/admin/customers/${client.user.id}/credit/transactions?limit=101&type=X`, admin.token)).status,
    ).toBe(422);
    expect((await api.get('/credit/me', driver.token)).status).toBe(403);
  });

  it(
    'applies credit partially to a cash order; the driver ' + 'collects what is left; delivery keeps it redeemed',
    async () => {
      const client = await signInClient(t);
      await grant(client, 10, 'ORDERS');
      const f = await confirmedOrder(t, { client, body: { basePrice: 25 } });
      const view = (await api.get(`/orders/${f.orderId}`, client.token)).body.order;
      expect(view).toMatchObject({
        client_pays_usd: 25,
        promo_credit_usd: 10,
        client_charged_usd: 15,
        is_fully_promoted: false,
      });
      expect(view.breakdown).toContainEqual({
        code: 'promo_credit',
        type: 'adjustment',
        amount_cents: -1000,
        amount_usd: -10,
        applied_fee_prc: null,
      });
      const driverView = (await api.get(`/orders/${f.orderId}`, f.driver.token)).body.order;
      expect(driverView).toMatchObject({
        client_pays_usd: 25,
        promo_credit_usd: 10,
        client_charged_usd: 15,
        driver_gross_usd: 22.5,
      });
      expect(await creditOf(client)).toMatchObject({ ordersUSD: 0, redeemedUSD: 10, usableOnOrdersUSD: 0 });
      expect((await transactions(client)).items[0]).toMatchObject({
        type: 'ORDER_REDEMPTION',
        scope: 'ORDERS',
        direction: 'DEBIT',
        amount_usd: 10,
        balance_after_usd: 0,
        order_id: f.orderId,
      });
      await arrive(t, f);
      expect(
        (await api.post(`/orders/${f.orderId}/deliver`, f.driver.token, { actualLiters: 2000, deliveryPin: f.pin }))
          .status,
      ).toBe(200);
      expect((await api.get(`/orders/${f.orderId}/receipt`, client.token)).body.receipt.breakdown).toMatchObject({
        promo_credit_usd: 10,
        client_charged_usd: 15,
      });
      expect(await creditOf(client)).toMatchObject({ redeemedUSD: 10 });
    },
  );

  it('re-applies credit on a payment-method change and refunds it on cancellation', async () => {
    const client = await signInClient(t);
    await grant(client, 5);
    const created = (await api.post('/orders', client.token, orderBody({ basePrice: 25 }))).body.order;
    expect(created).toMatchObject({ promo_credit_usd: 5, client_charged_usd: 20 });
    const changed = (
      await api.patch(`/orders/${created.id}/payment-method`, client.token, { paymentMethod: 'EXCHANGE_PAY' })
    ).body.order;
    expect(changed).toMatchObject({ client_pays_usd: 25.25, promo_credit_usd: 5, client_charged_usd: 20.25 });
    expect(await creditOf(client)).toMatchObject({ anyUSD: 0, redeemedUSD: 5 });
    await api.post(`/orders/${created.id}/cancel`, client.token, { reason_code: 'CLIENT_PRICE_TOO_HIGH' });
    expect(await creditOf(client)).toMatchObject({ anyUSD: 5, redeemedUSD: 0, usableOnOrdersUSD: 5 });
    expect((await transactions(client)).items[0]).toMatchObject({
      type: 'ORDER_REFUND',
      direction: 'CREDIT',
      amount_usd: 5,
      balance_after_usd: 5,
      order_id: created.id,
    });
  });

  it('pages the credit history newest first with an opaque cursor and filters', async () => {
    const client = await signInClient(t);
    for (const amount of [1, 2, 3]) await grant(client, amount, amount === 2 ? 'SURPLUS' : 'ANY');
    const page1 = await transactions(client, '?limit=2');
    expect(page1.items.map((i: { amount_usd: number }) => i.amount_usd)).toEqual([3, 2]);
    expect(page1.has_more).toBe(true);
    const page2 = await transactions(client, `?limit=2&cursor=${page1.next_cursor}`);
    expect(page2).toMatchObject({ has_more: false, next_cursor: null });
    expect(page2.items.map((i: { amount_usd: number }) => i.amount_usd)).toEqual([1]);
    expect(
      (await transactions(client, '?scope=SURPLUS')).items.map((i: { amount_usd: number }) => i.amount_usd),
    ).toEqual([2]);
    expect((await transactions(client, '?type=ORDER_REFUND')).items).toEqual([]);
    expect(
      (await api.get(`/admin/customers/${client.user.id}/credit/transactions?cursor=bogus`, admin.token)).status,
    ).toBe(422);
  });
});
