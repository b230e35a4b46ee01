import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakePayoutProvider } from '../../infra/payouts/fakePayoutServer.js';
import { startTestService, type TestService } from '../support/testService.js';
import { settlementSteps } from './settlementFlows.js';
import { settlementWorld } from './settlementWorld.js';

describe('payouts through the HTTP provider adapter (a local fake provider)', () => {
  let t: TestService;
  let fake: Awaited<ReturnType<typeof startFakePayoutProvider>>;
  /** What the provider did: each internal id is paid once, whatever the number of calls. */
  const paid = new Set<string>();
  beforeAll(async () => {
    fake = await startFakePayoutProvider((req, call) => {
      paid.add(req.internal_id);
      // The first call pays but its answer never arrives (timeout); the second is a 503; the third answers.
      if (call === 1) return 'hang';
      if (call === 2) return { status: 503, body: { error: 'busy' } };
      return { status: 200, body: { status: 'ACCP', transaction_id: `T-${req.internal_id.slice(0, 6)}`, ref_ibp: 'IBP-1' } };
    });
    t = await startTestService({ env: { PAYOUT_PROVIDER_URL: fake.url, PAYOUT_PROVIDER_KEY: 'k', PAYOUT_TIMEOUT_MS: '300' } });
  });
  afterAll(async () => {
    await t?.stop();
    await fake?.close();
  });

  it('a timeout and a 5xx keep the receipt IN_PAYMENT; the next runs re-send the same internal id until it is confirmed, paid once', async () => {
    const s = settlementSteps(t);
    const w = settlementWorld(t.service.ctx);
    const driverId = await w.driver('1', 1500);
    const [issued] = (await s.run('cutoff')).receipts;
    expect(issued.driver_id).toBe(driverId);
    expect((await s.run('payout')).receipts).toMatchObject([{ id: issued.id, status: 'IN_PAYMENT' }]);
    expect((await s.run('payout')).receipts).toMatchObject([{ id: issued.id, status: 'IN_PAYMENT' }]);
    expect((await s.run('payout')).receipts).toMatchObject([{ id: issued.id, status: 'PAID' }]);
    expect((await s.run('payout')).receipts).toEqual([]);
    const receipt = await s.receipt(issued.id);
    expect(receipt).toMatchObject({ status: 'PAID', bank_reference: 'IBP-1' });
    expect(receipt.payout_orders).toHaveLength(1);
    expect(receipt.payout_orders[0]).toMatchObject({ provider: 'payprov', status: 'CONFIRMED', attempt_count: 3 });
    expect(receipt.payout_orders[0].attempts.map((a: { result: string }) => a.result)).toEqual(['ERROR', 'ERROR', 'CONFIRMED']);
    expect(receipt.payout_orders[0].last_error).toMatch(/server_error/);
    expect(new Set(fake.calls.map((c) => c.internal_id))).toEqual(new Set([receipt.payout_orders[0].idempotency_key]));
    expect(paid.size).toBe(1);
    const payouts = await t.service.ctx.db.selectFrom('wallet_ledger').select('amount_cents').where('driver_id', '=', driverId).where('type', '=', 'PAYOUT_SENT').execute();
    expect(payouts.map((p) => Number(p.amount_cents))).toEqual([1500]);
  });
});
