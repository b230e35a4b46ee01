import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import { startFakePayoutProvider, type FakeAnswer } from '../../infra/payouts/fakePayoutServer.js';
import { signInAdmin } from '../support/actors.js';
import { startTestService, type TestService } from '../support/testService.js';
import { settlementSteps } from './settlementFlows.js';
import { settlementWorld } from './settlementWorld.js';

describe('payouts through the HTTP provider adapter (a local fake provider)', () => {
  let t: TestService;
  let fake: Awaited<ReturnType<typeof startFakePayoutProvider>>;
  /** What the provider did: each internal id is paid once, whatever the number of calls. */
  const paid = new Set<string>();
  const clock = new ManualClock('2026-11-23T16:00:00Z');
  /** How the provider answers the current test's calls (the call count is per internal id). */
  let answer: (req: { internal_id: string }, call: number) => FakeAnswer = () => 'hang';
  beforeAll(async () => {
    fake = await startFakePayoutProvider((req, call) => answer(req, call));
    t = await startTestService({
      clock,
      env: { PAYOUT_PROVIDER_URL: fake.url, PAYOUT_PROVIDER_KEY: 'k', PAYOUT_TIMEOUT_MS: '300' },
    });
  });
  afterAll(async () => {
    await t?.stop();
    await fake?.close();
  });

  it(
    'a timeout, a 5xx, a 429 and a 409 keep the receipt IN_PAYMENT; the next ' +
      'runs re-send the same internal id until it is confirmed, paid once',
    async () => {
      answer = (req, call) => {
        paid.add(req.internal_id);
        // The first call pays but its answer never arrives (timeout); then a 503, a 429 and a 409 "already
        // processed" with no status; the fifth answers.
        if (call === 1) return 'hang';
        if (call === 2) return { status: 503, body: { error: 'busy' } };
        if (call === 3) return { status: 429, body: { error: 'slow down' } };
        if (call === 4) return { status: 409, body: { error: 'already processed' } };
        return {
          status: 200,
          body: { status: 'ACCP', transaction_id: `T-${req.internal_id.slice(0, 6)}`, ref_ibp: 'IBP-1' },
        };
      };
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
      expect(receipt.payout_orders[0].attempts.map((a: { result: string }) => a.result)).toEqual([
        'ERROR',
        'ERROR',
        'ERROR',
        'ERROR',
        'CONFIRMED',
      ]);
      expect(receipt.payout_orders[0].last_error).toMatch(/HTTP 409/);
      expect(new Set(fake.calls.map((c) => c.internal_id))).toEqual(
        new Set([receipt.payout_orders[0].idempotency_key]),
      );
      expect(paid.size).toBe(1);
      const payouts = await t.service.ctx.db
        .selectFrom('wallet_ledger')
        .select('amount_cents')
        .where('driver_id', '=', driverId)
        .where('type', '=', 'PAYOUT_SENT')
        .execute();
      expect(payouts.map((p) => Number(p.amount_cents))).toEqual([1500]);
    },
  );

  it(
    'paid but unanswered until the deadline, then a stale RJCT: still ' +
      'a deadline failure, retry refused, paid once; the ACCP settles it',
    async () => {
      const payments: string[] = [];
      // The provider pays on the first call but its answers never arrive; what it says later comes by webhook.
      answer = (req, call) => {
        if (call === 1) payments.push(req.internal_id);
        return call === 1 ? 'hang' : { status: 409, body: { error: 'already processed' } };
      };
      const s = settlementSteps(t);
      const w = settlementWorld(t.service.ctx);
      const driverId = await w.driver('1', 900);
      const [issued] = (await s.run('cutoff')).receipts.filter((r) => r.driver_id === driverId);
      await s.run('payout');
      await s.run('payout');
      clock.advance(61 * 60_000);
      expect((await s.run('reconcile')).receipts).toMatchObject([{ id: issued.id, status: 'FAILED' }]);
      const key = (await s.receipt(issued.id)).payout_orders[0].idempotency_key;
      expect(
        (await s.webhook({ internal_id: key, transaction_id: 'T-old', status: 'RJCT', rejected_code: 'AC01' })).status,
      ).toBe(200);
      expect(await s.receipt(issued.id)).toMatchObject({ status: 'FAILED', failure_kind: 'deadline' });
      const retry = await s.act((await signInAdmin(t)).token, issued.id, 'retry');
      expect([retry.status, retry.body.error]).toEqual([409, 'RetryUnsafeDeadline']);
      expect(payments).toEqual([key]);
      expect(
        (await s.webhook({ internal_id: key, transaction_id: 'T-1', status: 'ACCP', ref_ibp: 'IBP-9' })).status,
      ).toBe(200);
      expect(await s.receipt(issued.id)).toMatchObject({ status: 'PAID', bank_reference: 'IBP-9' });
      const payouts = await t.service.ctx.db
        .selectFrom('wallet_ledger')
        .select('amount_cents')
        .where('driver_id', '=', driverId)
        .where('type', '=', 'PAYOUT_SENT')
        .execute();
      expect(payouts.map((p) => Number(p.amount_cents))).toEqual([900]);
    },
  );
});
