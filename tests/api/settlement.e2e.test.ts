import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin } from '../support/actors.js';
import { startTestService, type TestService } from '../support/testService.js';
import { must, settlementSteps } from './settlementFlows.js';

const MINUTE = 60_000;

describe('settlement receipts: cutoff, payout, webhook, reconciliation, tray (HTTP)', () => {
  let t: TestService;
  const clock = new ManualClock('2026-11-23T16:00:00Z'); // 12:00 in Caracas: the scheduler's cutoff is not due
  beforeAll(async () => {
    t = await startTestService({ clock, env: { OFFICIAL_RATE_VES: '36.5' } });
  });
  afterAll(() => t?.stop());

  it(
    'issues, pays, fails, reconciles and resolves receipts ' + 'as docs/domain-rules.md says, paying each at most once',
    async () => {
      const s = settlementSteps(t);
      const paid = await s.driverWithBalance('1', 20);
      const rejected = await s.driverWithBalance('9', 12.5);
      const silent = await s.driverWithBalance('8', 7);
      const acked = await s.driverWithBalance('7', 30);
      const poor = await s.driverWithBalance('2', 4.99);

      const cutoff = await s.run('cutoff');
      for (const d of [paid, rejected, silent, acked]) expect(s.byDriver(cutoff.receipts, d).status).toBe('GENERATED');
      expect(cutoff.receipts.some((r) => r.driver_id === poor.driverId)).toBe(false);
      expect((await s.run('cutoff')).receipts).toEqual([]);
      expect(await s.wallet(paid)).toMatchObject({ balanceUSD: 20, pendingPayoutUSD: 20, withdrawableUSD: 0 });
      const numbers = cutoff.receipts.map((r) => r.receipt_number).sort();
      expect(numbers).toEqual(numbers.map((_, i) => `2026-11-${String(i + 1).padStart(6, '0')}`));

      const payout = await s.run('payout');
      expect(s.byDriver(payout.receipts, paid).status).toBe('PAID');
      expect(s.byDriver(payout.receipts, rejected).status).toBe('FAILED');
      expect(s.byDriver(payout.receipts, silent).status).toBe('IN_PAYMENT');
      expect(s.byDriver(payout.receipts, acked).status).toBe('IN_PAYMENT');
      expect((await s.payoutsSent(paid)).map((e) => e.amount_cents)).toEqual([2000]);
      expect(await s.wallet(paid)).toMatchObject({ balanceUSD: 0, pendingPayoutUSD: 0 });
      const failed = await s.receipt(s.byDriver(cutoff.receipts, rejected).id);
      expect(failed).toMatchObject({ status: 'FAILED', failure_kind: 'business', failure_reason: 'AC04' });
      // A second payout run re-sends the silent order with the same key and creates no new order.
      await s.run('payout');
      const silentReceipt = await s.receipt(s.byDriver(cutoff.receipts, silent).id);
      expect(silentReceipt.payout_orders).toHaveLength(1);
      expect(silentReceipt.payout_orders[0].attempt_count).toBe(2);

      // Webhook: ACCP for the acknowledged order, redelivered concurrently: PAID once, one PAYOUT_SENT.
      const ackedReceipt = await s.receipt(s.byDriver(cutoff.receipts, acked).id);
      const key = ackedReceipt.payout_orders[0].idempotency_key;
      const pend = await s.webhook({ internal_id: key, transaction_id: 'T-7', status: 'PROC' });
      expect(pend.status).toBe(200);
      expect((await s.receipt(ackedReceipt.id)).status).toBe('IN_PAYMENT');
      const deliveries = await Promise.all(
        Array.from({ length: 6 }, () =>
          s.webhook({ internal_id: key, transaction_id: 'T-7', status: 'ACCP', ref_ibp: 'IBP-7' }),
        ),
      );
      expect(deliveries.map((d) => [d.status, d.body])).toEqual(deliveries.map(() => [200, { message: 'ok' }]));
      expect(await s.receipt(ackedReceipt.id)).toMatchObject({ status: 'PAID', bank_reference: 'IBP-7' });
      expect((await s.payoutsSent(acked)).map((e) => e.amount_cents)).toEqual([3000]);
      expect((await s.webhook({ internal_id: 'unknown', transaction_id: 'x', status: 'ACCP' })).status).toBe(200);
      expect((await s.webhook({ internal_id: key, transaction_id: 'x', status: 'ACCP' }, 'wrong')).status).toBe(401);
      const bad = await s.webhook({ internal_id: key, status: 'ACCP' });
      expect(bad.status).toBe(422);
      expect(bad.body.details.fieldErrors).toHaveProperty('transaction_id');
      const viaGet = await t.request(
        'GET',
        `/api/v1/settlements/webhook/payprov?token=${t.service.ctx.config.PAYOUT_WEBHOOK_TOKEN}` +
          `&internal_id=${key}&transaction_id=T-7&status=ACCP`,
      );
      expect(viaGet.status).toBe(200);

      // Reconciliation: an hour without a final answer fails the silent receipt (deadline).
      clock.advance(59 * MINUTE);
      expect((await s.run('reconcile')).receipts).toEqual([]);
      clock.advance(2 * MINUTE);
      const reconciled = await s.run('reconcile');
      expect(reconciled.receipts.map((r) => [r.driver_id, r.status])).toEqual([[silent.driverId, 'FAILED']]);
      expect(await s.receipt(silentReceipt.id)).toMatchObject({
        failure_kind: 'deadline',
        failure_reason: 'reconcile_deadline_exceeded',
      });
      // A RJCT arriving after the deadline (redelivered) is recorded once,
      // but the money's fate is still unknown: it stays a deadline failure.
      for (let i = 0; i < 2; i++)
        expect(
          (
            await s.webhook({
              internal_id: silentReceipt.payout_orders[0].idempotency_key,
              transaction_id: 'T-8',
              status: 'RJCT',
              rejected_code: 'AC01',
            })
          ).status,
        ).toBe(200);
      const lateReject = await s.receipt(silentReceipt.id);
      expect(lateReject).toMatchObject({
        status: 'FAILED',
        failure_kind: 'deadline',
        failure_reason: 'reconcile_deadline_exceeded',
      });
      expect(lateReject.payout_orders[0].attempts.map((a: { result: string }) => a.result)).toEqual([
        'NO_ANSWER',
        'NO_ANSWER',
        'REJECTED',
      ]);

      // The tray and its filter.
      const root = await signInAdmin(t);
      const tray = must('tray', await s.tray(root.token));
      expect(tray.items.map((i: { id: string }) => i.id).sort()).toEqual([failed.id, silentReceipt.id].sort());
      expect(tray.meta).toMatchObject({ total: 2, per_page: 25, current_page: 1, last_page: 1 });
      const business = must('tray', await s.tray(root.token, '?failure_kind=business'));
      expect(business.items).toMatchObject([
        { id: failed.id, failure_kind: 'business', provider_code: 'AC04', attempts: 1, payout_method: 'PAGO_MOVIL' },
      ]);
      expect((await s.tray(root.token, '?failure_kind=other')).status).toBe(422);

      // Tray actions and their errors.
      const retryDeadline = await s.act(root.token, silentReceipt.id, 'retry');
      expect([retryDeadline.status, retryDeadline.body.error]).toEqual([409, 'RetryUnsafeDeadline']);
      const retryPaid = await s.act(root.token, ackedReceipt.id, 'retry');
      expect([retryPaid.status, retryPaid.body.error]).toEqual([409, 'ReceiptNotFailed']);
      // The document lists it (the contract check of every answer): issue #44.
      const markPaid = await s.act(root.token, ackedReceipt.id, 'mark-external', { reason: 'x', reference: 'r' });
      expect([markPaid.status, markPaid.body.error]).toEqual([409, 'ReceiptNotFailed']);
      expect((await s.act(root.token, 'nope', 'retry')).status).toBe(404);
      const retried = must('retry', await s.act(root.token, failed.id, 'retry'));
      expect(retried.order.idempotency_key).not.toBe(failed.payout_orders[0].idempotency_key);
      expect(retried.audit_entry).toMatchObject({ action: 'retry', from_status: 'FAILED', to_status: 'FAILED' });
      const afterRetry = await s.receipt(failed.id);
      expect(afterRetry.payout_orders.map((o: { status: string }) => o.status)).toEqual(['FAILED', 'FAILED']);

      const noReason = await s.act(root.token, failed.id, 'annul', {});
      expect(noReason.status).toBe(422);
      expect(noReason.body.details.fieldErrors).toHaveProperty('reason');
      const annulled = must(
        'annul',
        await s.act(root.token, failed.id, 'annul', { reason: 'Cuenta del conductor inválida' }),
      );
      expect(annulled.receipt).toMatchObject({ status: 'VOIDED' });
      expect(annulled.audit_entry).toMatchObject({
        action: 'annul',
        from_status: 'FAILED',
        to_status: 'VOIDED',
        reason: 'Cuenta del conductor inválida',
      });
      expect(await s.wallet(rejected)).toMatchObject({ balanceUSD: 12.5, pendingPayoutUSD: 0, withdrawableUSD: 12.5 });
      expect((await s.act(root.token, failed.id, 'annul', { reason: 'otra vez' })).status).toBe(409);

      const longRef = await s.act(root.token, silentReceipt.id, 'mark-external', {
        reason: 'x',
        reference: 'r'.repeat(192),
      });
      expect(longRef.status).toBe(422);
      expect(longRef.body.details.fieldErrors).toHaveProperty('reference');
      const external = must(
        'mark-external',
        await s.act(root.token, silentReceipt.id, 'mark-external', {
          reason: 'Pagado por transferencia',
          reference: 'BNK-778',
        }),
      );
      expect(external.receipt).toMatchObject({ status: 'PAID_EXTERNALLY', bank_reference: 'BNK-778' });
      expect(external.audit_entry).toMatchObject({
        action: 'mark_external',
        from_status: 'FAILED',
        to_status: 'PAID_EXTERNALLY',
      });
      // The provider's late confirmation is recorded, never paid twice.
      const late = await s.webhook({
        internal_id: silentReceipt.payout_orders[0].idempotency_key,
        transaction_id: 'T-8',
        status: 'ACCP',
      });
      expect(late.status).toBe(200);
      const afterLate = await s.receipt(silentReceipt.id);
      expect(afterLate.status).toBe('PAID_EXTERNALLY');
      expect(afterLate.payout_orders[0].status).toBe('CONFIRMED');
      expect(afterLate.receipt_changes.map((c: { action: string }) => c.action)).toEqual([
        'mark_external',
        'late_confirmation',
      ]);
      expect(afterLate.receipt_changes[0]).toMatchObject({
        admin_id: root.admin.id,
        from_status: 'FAILED',
        to_status: 'PAID_EXTERNALLY',
        reason: 'Pagado por transferencia',
      });
      expect(afterLate.receipt_changes[1]).toMatchObject({
        admin_id: null,
        from_status: 'PAID_EXTERNALLY',
        to_status: 'PAID_EXTERNALLY',
      });
      expect((await s.payoutsSent(silent)).map((e) => e.amount_cents)).toEqual([700]);

      // The annulled receipt's entries go back to the pool: the next cutoff issues them again.
      const again = await s.run('cutoff');
      expect(again.receipts.map((r) => [r.driver_id, r.status])).toEqual([[rejected.driverId, 'GENERATED']]);

      // Driver views: own receipts only.
      const mine = must('mine', await s.mine(rejected));
      expect(mine.items.map((i: { status: string }) => i.status)).toEqual(['GENERATED', 'VOIDED']);
      expect(mine).toMatchObject({ has_more: false, next_cursor: null });
      const page1 = must('page', await s.mine(rejected, '?limit=1'));
      const page2 = must('page', await s.mine(rejected, `?limit=1&cursor=${page1.next_cursor}`));
      expect([page1.has_more, page2.items[0].id]).toEqual([true, mine.items[1].id]);
      expect(must('filtered', await s.mine(rejected, '?status=VOIDED')).items).toHaveLength(1);
      expect((await s.mine(rejected, '?date_from=2026-11-24&date_to=2026-11-23')).status).toBe(422);
      const detail = must('detail', await s.mine(paid, `/${s.byDriver(cutoff.receipts, paid).id}`));
      expect(detail.settlement).toMatchObject({
        status: 'PAID',
        payable_usd: 20,
        iva_prc: '16',
        payout_method: 'PAGO_MOVIL',
      });
      expect(detail.settlement.lines).toMatchObject([
        { line_number: 1, type: 'ADJUSTMENT', order_id: null, net_usd: 20 },
      ]);
      expect((await s.mine(rejected, `/${s.byDriver(cutoff.receipts, paid).id}`)).status).toBe(404);

      // Record ids are integers everywhere; a path id that is not one is an unknown receipt.
      expect(Number.isSafeInteger(detail.settlement.id)).toBe(true);
      const adminDetail = await s.receipt(detail.settlement.id);
      for (const id of [
        adminDetail.id,
        ...adminDetail.lines.map((l: { id: number }) => l.id),
        ...adminDetail.payout_orders.map((o: { id: number }) => o.id),
      ])
        expect(Number.isSafeInteger(id)).toBe(true);
      const payoutEntry = must('ledger', await s.api.get('/wallet/me/transactions?type=PAYOUT_SENT', paid.token))
        .items[0];
      expect(payoutEntry).toMatchObject({
        id: expect.any(Number),
        receipt_id: detail.settlement.id,
        description: `Pago del recibo ${detail.settlement.receipt_number}`,
      });
      for (const bad of ['abc', '1.5', '0', '-1', '00000000-0000-4000-8000-000000000000']) {
        expect((await s.mine(paid, `/${bad}`)).status, bad).toBe(404);
        expect((await s.receipts(root.token, `/${bad}`)).body.error, bad).toBe('ReceiptNotFound');
        expect((await s.receipts(root.token, `/${bad}/history`)).status, bad).toBe(404);
        expect((await s.act(root.token, bad, 'annul', { reason: 'no existe' })).status, bad).toBe(404);
      }

      // Admin list filters.
      const all = must('list', await s.receipts(root.token));
      expect(all.meta.total).toBe(5);
      expect(must('by status', await s.receipts(root.token, '?status=PAID')).items).toHaveLength(2);
      expect(await s.totalOf(root.token, `?driver_id=${rejected.driverId}`)).toBe(2);
      expect(
        must('by q', await s.receipts(root.token, `?q=${numbers[0]}`)).items.map(
          (i: { receipt_number: string }) => i.receipt_number,
        ),
      ).toEqual([numbers[0]]);
      expect(await s.totalOf(root.token, '?q=Conductor%207')).toBe(1);
      expect(await s.totalOf(root.token, '?fiscal_period=2026-10')).toBe(0);
      expect(await s.totalOf(root.token, '?date_from=2026-11-23&date_to=2026-11-23')).toBe(5);
      expect(await s.totalOf(root.token, '?date_from=2026-11-24')).toBe(0);
      expect((await s.receipts(root.token, '?limit=0')).status).toBe(422);
      const plain = await signInAdmin(t, { superAdmin: false });
      expect((await s.receipts(plain.token)).status).toBe(403);
      expect((await s.api.post('/admin/settlements/run', plain.token, { process: 'cutoff' })).status).toBe(403);
    },
  );
});
