import { describe, expect, it } from 'vitest';
import { fold } from '../decider.js';
import { DomainError } from '../errors.js';
import type { ReceiptEvent, ReceiptIssuedData } from './events.js';
import { decideReceipt, evolveReceipt, initialReceipt, type ReceiptCommand, type ReceiptState } from './receipt.js';

const issued: ReceiptIssuedData = {
  receiptId: 'r1',
  recordId: 1,
  receiptNumber: '2026-11-000001',
  fiscalPeriod: '2026-11',
  driverId: 7,
  cityId: 1,
  cutoffFrom: '2026-11-22T10:00:00.000Z',
  cutoffTo: '2026-11-23T22:00:00.000Z',
  ivaPrc: 16,
  entryIds: ['e1'],
  lines: [],
  totals: {
    subtotalCents: 0,
    discountCents: 0,
    ordersTotalCents: 0,
    commissionCents: 0,
    netCents: 1000,
    payableCents: 1000,
    netBsCents: 36000,
    remunerationBaseCents: 0,
    ivaCents: 0,
    remunerationTotalCents: 0,
  },
  beneficiary: {
    name: 'Ana',
    method: 'PAGO_MOVIL',
    idNumber: 'V123',
    bankCode: '0102',
    account: '04141234567',
    accountType: null,
  },
  issuedAt: '2026-11-23T22:00:00.000Z',
};

const admin = { adminId: 1, adminName: 'Root' };
const at = '2026-11-23T23:00:00.000Z';
const given = (...events: ReceiptEvent[]): ReceiptState => fold(evolveReceipt, initialReceipt, events);
const when = (s: ReceiptState, c: ReceiptCommand) => decideReceipt(c, s);
const thenThrows = (f: () => unknown, code: string) => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe(code);
    return;
  }
  throw new Error(`expected ${code}`);
};

const issue: ReceiptEvent = { type: 'ReceiptIssued', data: issued };
const order = (id = 'o1', retry: { adminId: number; adminName: string | null } | null = null): ReceiptEvent => ({
  type: 'PayoutOrderCreated',
  data: {
    receiptId: 'r1',
    payoutOrderId: id,
    recordId: Number(id.slice(1)),
    idempotencyKey: `k-${id}`,
    method: 'PAGO_MOVIL',
    provider: 'simulator',
    amountCents: 1000,
    amountBsCents: 36000,
    retry,
    at: '2026-11-23T23:00:00.000Z',
  },
});
const attempt = (
  result: 'CONFIRMED' | 'REJECTED' | 'ACKNOWLEDGED' | 'ERROR' | 'NO_ANSWER',
  id = 'o1',
  synchronous = true,
): ReceiptCommand => ({
  type: 'RecordAttempt',
  payoutOrderId: id,
  result,
  providerCode: result === 'REJECTED' ? 'AC04' : result === 'CONFIRMED' ? 'ACCP' : null,
  transactionId: result === 'CONFIRMED' ? 'tx1' : null,
  reference: result === 'CONFIRMED' ? 'ref1' : null,
  error: result === 'REJECTED' ? 'AC04' : result === 'ERROR' ? 'http 503' : null,
  synchronous,
  source: 'provider',
  at,
});
const apply = (s: ReceiptState, c: ReceiptCommand) => when(s, c).reduce(evolveReceipt, s);
/** An admin's retry of the receipt's payout as a second order, o2. */
const retryAsO2: ReceiptCommand = {
  type: 'RetryPayout',
  payoutOrderId: 'o2',
  recordId: 2,
  idempotencyKey: 'k2',
  provider: 'simulator',
  at,
  ...admin,
};

describe('settlement receipt', () => {
  it('is issued once: issuing again appends nothing', () => {
    expect(when(given(), { type: 'IssueReceipt', data: issued })).toHaveLength(1);
    expect(when(given(issue), { type: 'IssueReceipt', data: issued })).toEqual([]);
  });

  it('GENERATED → IN_PAYMENT with a payout order for the payable amount; a second payout run adds none', () => {
    const s = apply(given(issue), {
      type: 'CreatePayoutOrder',
      payoutOrderId: 'o1',
      recordId: 1,
      idempotencyKey: 'k1',
      provider: 'simulator',
      at,
    });
    expect(s.status).toBe('IN_PAYMENT');
    expect(s.payoutOrders).toMatchObject([{ id: 'o1', status: 'SENT', amountCents: 1000, idempotencyKey: 'k1' }]);
    expect(
      when(s, {
        type: 'CreatePayoutOrder',
        payoutOrderId: 'o2',
        recordId: 2,
        idempotencyKey: 'k2',
        provider: 'simulator',
        at,
      }),
    ).toEqual([]);
  });

  it('a confirmation makes it PAID; a repeated confirmation changes nothing', () => {
    const s = apply(given(issue, order()), attempt('CONFIRMED'));
    expect(s).toMatchObject({ status: 'PAID', paidAt: at, bankReference: 'ref1' });
    expect(s.payoutOrders[0]).toMatchObject({ status: 'CONFIRMED', confirmedAt: at, transactionId: 'tx1' });
    expect(when(s, attempt('CONFIRMED'))).toEqual([]);
  });

  it('a rejection is a business failure: retry is allowed and creates a new order, the old one stays FAILED', () => {
    const failed = apply(given(issue, order()), attempt('REJECTED'));
    expect(failed).toMatchObject({ status: 'FAILED', failureKind: 'business', failureReason: 'AC04' });
    const retried = apply(failed, retryAsO2);
    expect(retried.status).toBe('IN_PAYMENT');
    expect(retried.payoutOrders.map((o) => [o.id, o.status])).toEqual([
      ['o1', 'FAILED'],
      ['o2', 'SENT'],
    ]);
    const paid = apply(retried, attempt('CONFIRMED', 'o2'));
    expect(paid.status).toBe('PAID');
    expect(paid.changes).toMatchObject([{ action: 'retry', fromStatus: 'FAILED', toStatus: 'PAID', adminId: 1 }]);
  });

  it('acknowledged, errors and silence keep it IN_PAYMENT and count attempts', () => {
    let s = given(issue, order());
    for (const r of ['ERROR', 'NO_ANSWER', 'ACKNOWLEDGED'] as const) s = apply(s, attempt(r));
    expect(s.status).toBe('IN_PAYMENT');
    expect(s.payoutOrders[0].attempts.map((a) => a.result)).toEqual(['ERROR', 'NO_ANSWER', 'ACKNOWLEDGED']);
  });

  it('no final answer within the window: FAILED deadline; retry is then refused; a late ACCP makes it PAID', () => {
    const s = given(issue, order());
    expect(when(s, { type: 'ReconcileDeadline', now: '2026-11-23T23:59:59.000Z', reconcileMinutes: 60 })).toEqual([]);
    const failed = apply(s, { type: 'ReconcileDeadline', now: '2026-11-24T00:00:00.000Z', reconcileMinutes: 60 });
    expect(failed).toMatchObject({
      status: 'FAILED',
      failureKind: 'deadline',
      failureReason: 'reconcile_deadline_exceeded',
    });
    thenThrows(() => when(failed, retryAsO2), 'RetryUnsafeDeadline');
    expect(apply(failed, attempt('CONFIRMED', 'o1', false)).status).toBe('PAID');
  });

  it(
    'a rejection after the deadline is recorded on the order, once, ' +
      'but the receipt stays FAILED deadline and retry stays refused',
    () => {
      const failed = apply(given(issue, order()), {
        type: 'ReconcileDeadline',
        now: '2026-11-24T00:00:00.000Z',
        reconcileMinutes: 60,
      });
      const late = apply(failed, attempt('REJECTED', 'o1', false));
      expect(late).toMatchObject({
        status: 'FAILED',
        failureKind: 'deadline',
        failureReason: 'reconcile_deadline_exceeded',
      });
      expect(late.payoutOrders[0]).toMatchObject({ status: 'SENT', lastError: 'AC04' });
      expect(late.payoutOrders[0].attempts.map((a) => a.result)).toEqual(['REJECTED']);
      thenThrows(() => when(late, retryAsO2), 'RetryUnsafeDeadline');
      expect(when(late, attempt('REJECTED', 'o1', false))).toEqual([]);
      // The provider's confirmation is still what settles it.
      expect(apply(late, attempt('CONFIRMED', 'o1', false)).status).toBe('PAID');
    },
  );

  it('tray actions need FAILED', () => {
    const s = given(issue, order());
    thenThrows(() => when(s, { type: 'Annul', reason: 'x', at, ...admin }), 'ReceiptNotFailed');
    thenThrows(() => when(s, { type: 'MarkExternal', reason: 'x', reference: 'r', at, ...admin }), 'ReceiptNotFailed');
    thenThrows(() => when(s, retryAsO2), 'ReceiptNotFailed');
    thenThrows(() => when(given(), { type: 'Annul', reason: 'x', at, ...admin }), 'ReceiptNotFound');
  });

  it('mark-external and annul write the audit entry; a late ACCP then is only recorded', () => {
    const failed = apply(given(issue, order()), {
      type: 'ReconcileDeadline',
      now: '2026-11-24T01:00:00.000Z',
      reconcileMinutes: 60,
    });
    const external = apply(failed, {
      type: 'MarkExternal',
      reason: 'paid by transfer',
      reference: 'BNK-1',
      at,
      ...admin,
    });
    expect(external).toMatchObject({ status: 'PAID_EXTERNALLY', bankReference: 'BNK-1' });
    expect(external.changes).toMatchObject([
      { action: 'mark_external', fromStatus: 'FAILED', toStatus: 'PAID_EXTERNALLY', reason: 'paid by transfer' },
    ]);
    const late = apply(external, attempt('CONFIRMED', 'o1', false));
    expect(late.status).toBe('PAID_EXTERNALLY');
    expect(late.payoutOrders[0].status).toBe('CONFIRMED');
    expect(late.changes.map((c) => c.action)).toEqual(['mark_external', 'late_confirmation']);
    const voided = apply(failed, { type: 'Annul', reason: 'driver left', at, ...admin });
    expect(voided).toMatchObject({ status: 'VOIDED', voidedAt: at });
  });

  it('a rejection after the receipt was paid or for an old order changes nothing', () => {
    const paid = apply(given(issue, order()), attempt('CONFIRMED'));
    expect(when(paid, attempt('REJECTED'))).toEqual([]);
    const failed = apply(given(issue, order()), attempt('REJECTED'));
    expect(when(failed, attempt('REJECTED'))).toEqual([]);
  });
});
