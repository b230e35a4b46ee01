import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditStream } from '../../domain/credit/events.js';
import { orderStream } from '../../domain/order/events.js';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin, signInClient, type SignedInAdmin, type SignedInUser } from '../../tests/support/actors.js';
import {
  expectError,
  expectNewEvents,
  expectNoNewEvents,
  expectNothingAppended,
  expectResponse,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../tests/support/apiSpecification.js';
import { arrive, call, confirmedOrder, onlineDriver, orderBody } from '../../tests/support/orderFlows.js';

describe('customer credit', () => {
  let t: ApiUnderTest;
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
    const reason = 'Compensación por un pedido tardío';
    const r = await t
      .given()
      .when((api) =>
        api.post(`/admin/customers/${client.user.id}/credit/adjust`, admin.token, { type, scope, amount, reason }),
      )
      .then(
        expectResponse(200),
        expectNewEvents(creditStream(client.user.id), [
          {
            type: 'CreditAdjusted',
            data: {
              clientId: client.user.id,
              adminId: admin.admin.id,
              direction: type === 'debit' ? 'DEBIT' : 'CREDIT',
              scope,
              amountCents: Math.round(amount * 100),
              reason,
            },
          },
        ]),
      );
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
    const adjust = (customerId: number, token: string | undefined, body: object) =>
      t.given().when((api) => api.post(`/admin/customers/${customerId}/credit/adjust`, token, body));
    const bad = await adjust(client.user.id, admin.token, {
      type: 'gift',
      scope: 'ALL',
      amount: 0,
      reason: 'short',
    }).then(expectError(422, 'ValidationError'), expectNothingAppended);
    expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual(['amount', 'reason', 'scope', 'type']);
    const body = { type: 'credit', amount: 1, reason: 'Una razón suficientemente larga' };
    await adjust(999_999, admin.token, body).then(expectError(404, 'CustomerNotFound'), expectNothingAppended);
    const driver = await onlineDriver(t);
    await adjust(driver.user.id, admin.token, body).then(expectResponse(404), expectNothingAppended);
    await adjust(client.user.id, client.token, body).then(expectResponse(403), expectNothingAppended);
    await adjust(client.user.id, undefined, body).then(expectResponse(401), expectNothingAppended);
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
      const redemptions = (await t.service.ctx.store.readStream(creditStream(client.user.id))).filter(
        (e) => e.type === 'CreditRedeemed',
      );
      expect(redemptions.map((e) => e.data)).toMatchObject([
        { orderId: f.orderId, kind: 'order', amountCents: 1000, split: { ORDERS: 1000 }, balancesAfter: { ORDERS: 0 } },
      ]);
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
      await t
        .given()
        .when((api) =>
          api.post(`/orders/${f.orderId}/deliver`, f.driver.token, { actualLiters: 2000, deliveryPin: f.pin }),
        )
        .then(
          expectResponse(200),
          expectNewEvents(orderStream(f.orderId), [{ type: 'OrderDelivered', data: { isValidPromotion: true } }]),
          // The credit stays redeemed: delivery moves no credit.
          expectNoNewEvents(creditStream(client.user.id)),
        );
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
    const credit = creditStream(client.user.id);
    const created = (
      await t
        .given()
        .when((api) => api.post('/orders', client.token, orderBody({ basePrice: 25 })))
        .then(
          expectResponse(201),
          expectNewEvents(credit, [
            {
              type: 'CreditRedeemed',
              data: { clientId: client.user.id, amountCents: 500, split: { ANY: 500 }, balancesAfter: { ANY: 0 } },
            },
          ]),
        )
    ).body.order;
    expect(created).toMatchObject({ promo_credit_usd: 5, client_charged_usd: 20 });
    const changed = (
      await t
        .given()
        .when((api) =>
          api.patch(`/orders/${created.id}/payment-method`, client.token, { paymentMethod: 'EXCHANGE_PAY' }),
        )
        .then(
          expectResponse(200),
          // The 5 USD already redeemed cover the new price too: no credit moves, the order is re-priced.
          expectNoNewEvents(credit),
          expectNewEvents(orderStream(created.id), [
            { type: 'PaymentMethodChanged', data: { paymentMethod: 'EXCHANGE_PAY', creditKind: 'order' } },
          ]),
        )
    ).body.order;
    expect(changed).toMatchObject({ client_pays_usd: 25.25, promo_credit_usd: 5, client_charged_usd: 20.25 });
    expect(await creditOf(client)).toMatchObject({ anyUSD: 0, redeemedUSD: 5 });
    await t
      .given()
      .when((api) => api.post(`/orders/${created.id}/cancel`, client.token, { reason_code: 'CLIENT_PRICE_TOO_HIGH' }))
      .then(
        expectResponse(200),
        expectNewEvents(credit, [
          {
            type: 'CreditRefunded',
            data: { orderId: created.id, amountCents: 500, split: { ANY: 500 }, reason: 'ORDER_CANCELLED' },
          },
        ]),
      );
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
