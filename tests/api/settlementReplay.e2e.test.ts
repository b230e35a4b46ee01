import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin } from '../support/actors.js';
import { arrive, confirmedOrder, onlineDriver } from '../support/orderFlows.js';
import { startTestService, type TestService } from '../support/testService.js';
import { must, settlementSteps } from './settlementFlows.js';

describe("settlement config and the auditor's replay (HTTP)", () => {
  let t: TestService;
  const clock = new ManualClock('2026-11-23T21:00:00Z');
  beforeAll(async () => {
    t = await startTestService({ clock, env: { OFFICIAL_RATE_VES: '36.5' } });
  });
  afterAll(() => t?.stop());

  it('config: defaults, partial update with the audit entry of changed fields only, no-op, every 422', async () => {
    const { api } = settlementSteps(t);
    const root = await signInAdmin(t);
    expect(must('get', await api.get('/admin/settlements/config', root.token)).config).toEqual({
      cutoff_enabled: true,
      cutoff_time: '18:00',
      payout_enabled: true,
      payout_time: '19:00',
      min_balance_usd: 5,
      min_balance_cents: 500,
      active_days: [true, true, true, true, true, true, true],
      iva_prc: 16,
      timezone: 'America/Caracas',
    });
    const changed = must(
      'patch',
      await api.patch('/admin/settlements/config', root.token, {
        min_balance: 7.5,
        cutoff_time: '18:00',
        active_days: [false, true, true, true, true, true, true],
      }),
    );
    expect(changed.config).toMatchObject({
      min_balance_usd: 7.5,
      min_balance_cents: 750,
      active_days: [false, true, true, true, true, true, true],
    });
    expect(changed.audit_entry).toMatchObject({
      key: 'settlement_config',
      old_values: { min_balance_usd: 5, active_days: [true, true, true, true, true, true, true] },
      new_values: { min_balance_usd: 7.5, active_days: [false, true, true, true, true, true, true] },
    });
    expect(Object.keys(changed.audit_entry.new_values).sort()).toEqual(['active_days', 'min_balance_usd']);
    const noop = must('noop', await api.patch('/admin/settlements/config', root.token, { min_balance: 7.5 }));
    expect(noop.audit_entry).toBeNull();
    const bad = async (body: Record<string, unknown>, field: string) => {
      const r = await api.patch('/admin/settlements/config', root.token, body);
      expect([r.status, r.body.error, Object.keys(r.body.details.fieldErrors)], JSON.stringify(body)).toEqual([
        422,
        'ValidationError',
        [field],
      ]);
    };
    await bad({ payout_time: '17:59' }, 'payout_time');
    await bad({ cutoff_time: '19:00' }, 'cutoff_time');
    await bad({ cutoff_time: '24:00' }, 'cutoff_time');
    await bad({ min_balance: 0.49 }, 'min_balance');
    await bad({ active_days: [true, true] }, 'active_days');
    await bad({ iva_prc: 101 }, 'iva_prc');
    await bad({ timezone: 'Mars/Olympus' }, 'timezone');
    expect(
      must('offset', await api.patch('/admin/settlements/config', root.token, { timezone: '-04:00', min_balance: 5 }))
        .config.timezone,
    ).toBe('-04:00');
    expect(
      must(
        'back',
        await api.patch('/admin/settlements/config', root.token, {
          timezone: 'America/Caracas',
          active_days: [true, true, true, true, true, true, true],
        }),
      ).config.timezone,
    ).toBe('America/Caracas');
    const plain = await signInAdmin(t, { superAdmin: false });
    expect((await api.get('/admin/settlements/config', plain.token)).status).toBe(403);
  });

  it(
    'an order line nets a cash order to minus its commission; ' +
      'history and as_of replay every receipt; the order history',
    async () => {
      const s = settlementSteps(t);
      const root = await signInAdmin(t);
      const driver = await onlineDriver(t, { name: 'Conductora Replay' });
      must(
        'payout config',
        await s.api.post('/wallet/me/payout-config', driver.token, {
          method: 'PAGO_MOVIL',
          bankCode: '0102',
          idNumber: 'V7654321',
          phone: '04141234567',
        }),
      );
      const flow = await confirmedOrder(t, { driver, body: { paymentMethod: 'CASH_USD' } });
      await arrive(t, flow);
      must(
        'deliver',
        await s.api.post(`/orders/${flow.orderId}/deliver`, driver.token, {
          actualLiters: 2000,
          deliveryPin: flow.pin,
        }),
      );
      // The delivery's wallet entry is written by the wallet's catch-up: run the scheduled jobs once now.
      await t.service.ctx.scheduler.tick();
      expect(
        (await s.api.get('/wallet/me/transactions?type=CASH_COMMISSION_DEBT', driver.token)).body.items,
      ).toHaveLength(1);
      await s.credit(driver.driverId, 20);
      const other = await s.driverWithBalance('7', 9);

      const issuedAt = clock.now().toISOString();
      const cutoff = await s.run('cutoff');
      const mine = s.byDriver(cutoff.receipts, driver);
      const detail = await s.receipt(mine.id);
      const [orderLine, adjustment] = detail.lines;
      expect(orderLine).toMatchObject({
        type: 'ORDER',
        order_id: flow.orderId,
        exchange_rate_amount: expect.any(String),
      });
      expect(orderLine.net_usd).toBeLessThan(0);
      expect(orderLine.net_usd).toBe(orderLine.commission_usd);
      expect(adjustment).toMatchObject({
        type: 'ADJUSTMENT',
        order_id: null,
        net_usd: 20,
        commission_usd: 0,
        subtotal_usd: 0,
      });
      // The credit is paid in bolivars too, at the official rate in force at the cutoff.
      expect(adjustment).toMatchObject({ exchange_rate_amount: '36.50', total_bs_cents: 2000 * 36.5 });
      expect(detail.payable_usd).toBeCloseTo(20 + orderLine.net_usd, 2);
      expect(detail.remuneration_total_usd).toBe(-orderLine.commission_usd);
      expect(detail.iva_usd + detail.remuneration_base_usd).toBeCloseTo(detail.remuneration_total_usd, 2);
      expect(detail.net_bs_cents).toBe(orderLine.total_bs_cents + adjustment.total_bs_cents);

      clock.advance(60_000);
      await s.run('payout');
      // The driver is paid every bolivar the lines add up to.
      expect(
        (await s.receipt(mine.id)).payout_orders.map((o: { amount_bs_cents: number }) => o.amount_bs_cents),
      ).toEqual([detail.net_bs_cents]);
      clock.advance(60_000);
      const key = (await s.receipt(s.byDriver(cutoff.receipts, other).id)).payout_orders[0].idempotency_key;
      expect(
        (await s.webhook({ internal_id: key, transaction_id: 'T-1', status: 'RJCT', rejected_code: 'AC01' })).status,
      ).toBe(200);
      clock.advance(60_000);
      const otherId = s.byDriver(cutoff.receipts, other).id;
      must('annul', await s.act(root.token, otherId, 'annul', { reason: 'Cuenta cerrada por el banco' }));

      // The history: every event in order with actor, correlation and causation ids.
      const history = must('history', await s.receipts(root.token, `/${otherId}/history`));
      expect(history.events.map((e: { type: string }) => e.type)).toEqual([
        'ReceiptIssued',
        'PayoutOrderCreated',
        'PayoutAttempted',
        'PayoutAttempted',
        'ReceiptAnnulled',
      ]);
      expect(history.events.map((e: { revision: number }) => e.revision)).toEqual([0, 1, 2, 3, 4]);
      const annul = history.events[4];
      expect(annul.actor).toEqual({ id: root.admin.id, role: 'ADMIN', name: root.admin.name });
      expect(annul.correlation_id).toEqual(expect.any(String));
      expect(history.events[3].actor).toEqual({ id: null, role: 'PAYOUT_PROVIDER', name: null });
      expect(history.events[3].data).toMatchObject({ result: 'REJECTED', providerCode: 'AC01', source: 'webhook' });
      expect((await s.receipts(root.token, '/none/history')).status).toBe(404);

      // as_of: before the issue 404; at each instant the receipt as
      // it stood; at the latest instant equal to the live detail.
      const before = await s.receipts(root.token, `/${otherId}?as_of=2020-01-01T00:00:00Z`);
      expect([before.status, before.body.error]).toEqual([404, 'ReceiptNotFound']);
      expect((await s.receipt(otherId, history.events[1].recorded_at)).status).toBe('IN_PAYMENT');
      expect((await s.receipt(otherId, history.events[3].recorded_at)).status).toBe('FAILED');
      expect((await s.receipts(root.token, `/${otherId}?as_of=yesterday`)).status).toBe(422);
      const all = must('all', await s.receipts(root.token, '?limit=100')).items as { id: string }[];
      expect(all.length).toBeGreaterThanOrEqual(2);
      const now = '2100-01-01T00:00:00.000Z';
      for (const r of all) expect(await s.receipt(r.id, now)).toEqual(await s.receipt(r.id));
      expect(issuedAt <= detail.issued_at).toBe(true);

      // The order's history, same item shape.
      const orderHistory = must('order history', await s.api.get(`/admin/orders/${flow.orderId}/history`, root.token));
      expect(orderHistory.order_id).toBe(flow.orderId);
      expect(orderHistory.events[0]).toMatchObject({
        revision: 0,
        type: 'OrderCreated',
        global_position: expect.any(Number),
        actor: { role: 'CLIENT' },
      });
      expect(orderHistory.events.map((e: { type: string }) => e.type)).toContain('OrderDelivered');
      expect((await s.api.get('/admin/orders/999999/history', root.token)).status).toBe(404);
      expect((await s.api.get(`/admin/orders/${flow.orderId}/history`, driver.token)).status).toBe(403);
    },
  );
});

describe('the cutoff without an official rate', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ clock: new ManualClock('2026-11-23T21:00:00Z'), env: { DEVELOPMENT_RATE_VES: '0' } });
  });
  afterAll(() => t?.stop());

  it('issues nothing and answers 422 ExchangeRateUnavailable: no line can be paid in bolivars', async () => {
    const s = settlementSteps(t);
    const driver = await s.driverWithBalance('1', 20);
    const r = await s.api.post('/admin/settlements/run', (await signInAdmin(t)).token, { process: 'cutoff' });
    expect([r.status, r.body.error]).toEqual([422, 'ExchangeRateUnavailable']);
    expect(await s.wallet(driver)).toMatchObject({ balanceUSD: 20, pendingPayoutUSD: 0 });
  });
});
