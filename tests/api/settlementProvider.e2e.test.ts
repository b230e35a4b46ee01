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
      // The first call pays but its answer never arrives (timeout); then a 503, a 429 and a 409 "already
      // processed" with no status; the fifth answers.
      if (call === 1) return 'hang';
      if (call === 2) return { status: 503, body: { error: 'busy' } };
      if (call === 3) return { status: 429, body: { error: 'slow down' } };
      if (call === 4) return { status: 409, body: { error: 'already processed' } };
      return { status: 200, body: { status: 'ACCP', transaction_id: `T-${req.internal_id.slice(0, 6)}`, ref_ibp: 'IBP-1' } };
    });
    t = await startTestService({ env: { PAYOUT_PROVIDER_URL: fake.url, PAYOUT_PROVIDER_KEY: 'k', PAYOUT_TIMEOUT_MS: '300' } });
  });
  afterAll(async () => {
    await t?.stop();
    await fake?.close();
  });

  it('a timeout, a 5xx, a 429 and a 409 keep the receipt IN_PAYMENT; the next runs re-send the same internal id until it is confirmed, paid once', async () => {
    const s = settlementSteps(t);
    const w = settlementWorld(t.service.ctx);
    const driverId = await w.driver('1', 1500);
    const [issued] = (await s.run('cutoff')).receipts;
    expect(issued.driver_id).toBe(driverId);
    for (let i = 0; i < 4; i++) {
      expect((await s.run('payout')).receipts).toMatchObject([{ id: issued.id, status: 'IN_PAYMENT' }]);
      // Never a business failure: a retry under a new internal id would pay twice.
      expect(await s.receipt(issued.id)).toMatchObject({ status: 'IN_PAYMENT', failure_kind: null });
    }
    expect((await s.run('payout')).receipts).toMatchObject([{ id: issued.id, status: 'PAID' }]);
    expect((await s.run('payout')).receipts).toEqual([]);
    const receipt = await s.receipt(issued.id);
    expect(receipt).toMatchObject({ status: 'PAID', bank_reference: 'IBP-1' });
    expect(receipt.payout_orders).toHaveLength(1);
    expect(receipt.payout_orders[0]).toMatchObject({ provider: 'payprov', status: 'CONFIRMED', attempt_count: 5 });
    expect(receipt.payout_orders[0].attempts.map((a: { result: string }) => a.result)).toEqual(['ERROR', 'ERROR', 'ERROR', 'ERROR', 'CONFIRMED']);
    expect(receipt.payout_orders[0].last_error).toMatch(/HTTP 409/);
    expect(new Set(fake.calls.map((c) => c.internal_id))).toEqual(new Set([receipt.payout_orders[0].idempotency_key]));
    expect(paid.size).toBe(1);
    const payouts = await t.service.ctx.db.selectFrom('wallet_ledger').select('amount_cents').where('driver_id', '=', driverId).where('type', '=', 'PAYOUT_SENT').execute();
    expect(payouts.map((p) => Number(p.amount_cents))).toEqual([1500]);
  });
});
