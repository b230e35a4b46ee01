import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reactToDelivery } from '../../commands/wallet/walletReactions.js';
import { walletStream } from '../../domain/wallet/events.js';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin, type SignedInAdmin } from '../support/actors.js';
import { call, confirmedOrder, deliverOrder, onlineDriver } from '../support/orderFlows.js';
import { startTestService, type TestResponse, type TestService } from '../support/testService.js';

/**
 * One driver's wallet under concurrent writers: 20 deliveries' reactions (each redelivered at once),
 * an admin adjustment and a payout-account change all land on the driver's one wallet stream. Nothing is
 * lost, nothing is counted twice, and the ledger explains the balance.
 */
describe('wallet concurrency and invariants', () => {
  let t: TestService;
  let api: ReturnType<typeof call>;
  let root: SignedInAdmin;
  beforeAll(async () => {
    t = await startTestService({
      clock: new ManualClock(),
      env: { OFFICIAL_RATE_VES: '36.5', CASH_DEBT_CAP_USD: '100000' },
      roles: ['api', 'projector', 'gateway'],
    });
    api = call(t);
    root = await signInAdmin(t);
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
  });

  const must = (what: string, r: TestResponse, status: number) => {
    if (r.status !== status) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };

  it(
    '20 deliveries racing with an adjustment and a payout-config ' + 'change lose nothing; redeliveries add nothing',
    async () => {
      const driver = await onlineDriver(t);
      const orderIds: number[] = [];
      // 300 liters each (the tank holds 8 000). Base prices 10.00 … 29.00
      // USD: commissions 1.00 … 2.90, each delivery its own amount.
      for (let i = 0; i < 20; i++) {
        const f = await confirmedOrder(t, { driver, body: { basePrice: 10 + i, litersRequested: 300 } });
        await deliverOrder(t, f, 300);
        orderIds.push(f.orderId);
      }
      const causes = await Promise.all(
        orderIds.map(async (id) =>
          (await t.service.ctx.store.readStream(`order-${id}`)).find((e) => e.type === 'OrderDelivered')!,
        ),
      );

      const [adjusted, configured, ...reactions] = await Promise.allSettled([
        api.post(`/admin/drivers/${driver.driverId}/wallet/adjustments`, root.token, {
          direction: 'CREDIT',
          amount: 100,
          reason: 'Depósito del conductor para saldar deuda',
        }),
        api.post('/wallet/me/payout-config', driver.token, {
          method: 'PAGO_MOVIL',
          bankCode: '0102',
          idNumber: 'V12345678',
          phone: '04141234567',
        }),
        ...causes.flatMap((c) => [reactToDelivery(t.service.ctx, c), reactToDelivery(t.service.ctx, c)]),
      ]);
      expect(reactions.filter((r) => r.status === 'rejected')).toEqual([]);
      expect(adjusted.status === 'fulfilled' && adjusted.value.status).toBe(201);
      expect(configured.status === 'fulfilled' && configured.value.status).toBe(200);
      // The catch-up runs over the same deliveries again, twice at once.
      await Promise.all([t.service.ctx.scheduler.tick(), t.service.ctx.scheduler.tick()]);

      const items: {
        type: string;
        direction: string;
        amount_cents: number;
        balance_after_cents: number;
        order_id: number | null;
      }[] = [];
      let cursor: string | null = null;
      do {
        const page = must(
          'ledger',
          await api.get(`/wallet/me/transactions?limit=7${cursor ? `&cursor=${cursor}` : ''}`, driver.token),
          200,
        );
        items.push(...page.items);
        cursor = page.next_cursor;
      } while (cursor);

      const commissions = orderIds.map((_, i) => (10 + i) * 10);
      expect(items).toHaveLength(21);
      expect(
        items
          .filter((e) => e.type === 'CASH_COMMISSION_DEBT')
          .map((e) => [e.order_id, e.amount_cents])
          .sort((a, b) => a[0]! - b[0]!),
      ).toEqual(orderIds.map((id, i) => [id, commissions[i]]));
      expect(items.filter((e) => e.type === 'MANUAL_ADJUSTMENT').map((e) => e.amount_cents)).toEqual([10_000]);

      // Σ credits − debits = balance, and every entry's running balance follows from the one before it.
      const chronological = [...items].reverse();
      let running = 0;
      for (const e of chronological) {
        running += e.direction === 'CREDIT' ? e.amount_cents : -e.amount_cents;
        expect(e.balance_after_cents).toBe(running);
      }
      const expected = 10_000 - commissions.reduce((a, b) => a + b, 0);
      expect(running).toBe(expected);
      expect(must('wallet', await api.get('/wallet/me', driver.token), 200).balanceUSD).toBe(expected / 100);
      expect(must('config', await api.get('/wallet/me/payout-config', driver.token), 200).config).toMatchObject({
        method: 'PAGO_MOVIL',
        phone: '04141234567',
      });

      // The stream holds exactly what the ledger shows: one opening, one account change, 21 entries.
      const stream = await t.service.ctx.store.readStream(walletStream(driver.driverId));
      expect(stream.filter((e) => e.type === 'LedgerEntryRecorded')).toHaveLength(21);
      expect(stream.filter((e) => e.type === 'WalletOpened')).toHaveLength(1);
      expect(stream.filter((e) => e.type === 'PayoutAccountSet')).toHaveLength(1);
    },
    120_000,
  );
});
