import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin, signInClient, signInDriver, type SignedInAdmin } from '../support/actors.js';
import { call, onlineDriver, orderBody } from '../support/orderFlows.js';
import { startTestService, type TestService } from '../support/testService.js';

/**
 * The reviewed payments (issue 45, docs/decisions/0103): what an admin approved or rejected stays readable
 * after it leaves the queue, with who decided, when, the outcome and the reason, newest first, in the
 * reader's cities. A started service, since a city-limited admin's list finds an order's city in the reports.
 */
let t: TestService;
let api: ReturnType<typeof call>;
let root: SignedInAdmin;
let local: SignedInAdmin;
let usdFormId: number;
const clock = new ManualClock('2026-03-02T12:00:00Z');
const VALENCIA = 3;

const must = (what: string, r: { status: number; body: any }, status = 200) => {
  if (r.status !== status) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
};

/** A Caracas order paid by the USD payment form, its payment reported and waiting for review. */
const reported = async (payerName: string) => {
  const client = await signInClient(t, undefined, payerName);
  const driver = await onlineDriver(t);
  const created = must(
    'order',
    await api.post('/orders', client.token, orderBody({ paymentMethod: 'PAYMENT_FORM', paymentFormId: usdFormId })),
    201,
  );
  const orderId: number = created.order.id;
  const offer = must('bid', await api.post(`/orders/${orderId}/accept`, driver.token, {}), 201).offer;
  must('accept', await api.post(`/orders/offers/${offer.id}/accept`, client.token));
  const payment = must(
    'report',
    await api.post(`/orders/${orderId}/payment/form`, client.token, {
      values: [
        { index: 1, value: payerName },
        { index: 2, value: 'pagos@example.com' },
        { index: 3, value: `ZL-${orderId}0000` },
      ],
    }),
  ).payment;
  return { orderId, paymentId: payment.id as number };
};

const decide = async (paymentId: number, action: 'approve' | 'reject', by: SignedInAdmin, reason: string) =>
  must(action, await api.post(`/admin/payments/${paymentId}/${action}`, by.token, { reason }));

const reviewed = async (query: string, token = root.token) =>
  must('reviewed', await api.get(`/admin/payments/reviewed${query}`, token));
const ids = (body: { items: { id: number }[] }) => body.items.map((i) => i.id);

describe('reviewed payments', () => {
  let approved: { orderId: number; paymentId: number };
  let rejected: { orderId: number; paymentId: number };
  let lateApproved: { orderId: number; paymentId: number };
  let waiting: { orderId: number; paymentId: number };

  beforeAll(async () => {
    t = await startTestService({ clock, env: { OFFICIAL_RATE_VES: '36.5' } });
    api = call(t);
    root = await signInAdmin(t);
    const forms = must('forms', await api.get('/payment-forms', root.token));
    usdFormId = forms.forms.find((f: { currency: string }) => f.currency === 'USD').id;

    approved = await reported('Ana Aprobada');
    await decide(approved.paymentId, 'approve', root, 'Transferencia verificada en el banco');
    clock.set('2026-03-03T12:00:00Z');
    // Signed in on the day it acts: an admin's session does not outlive the clock's jumps.
    local = await signInAdmin(t, { superAdmin: false, cityIds: [1] });
    rejected = await reported('Beto Rechazado');
    await decide(rejected.paymentId, 'reject', local, 'La referencia no aparece en el banco');
    // 22:00 of 3 March in Caracas (UTC−4), already 4 March in UTC.
    clock.set('2026-03-04T02:00:00Z');
    lateApproved = await reported('Carla Tardía');
    await decide(lateApproved.paymentId, 'approve', root, 'Pago confirmado por teléfono con el banco');
    waiting = await reported('Diego Esperando');
  }, 120_000);

  afterAll(async () => {
    await t?.stop();
  });

  it('lists what admins approved and rejected, newest decision first, with who, when, the outcome and the reason', async () => {
    const all = await reviewed('');
    expect(ids(all)).toEqual([lateApproved.paymentId, rejected.paymentId, approved.paymentId]);
    expect(ids(all)).not.toContain(waiting.paymentId);
    expect(all.meta).toEqual({ total: 3, per_page: 25, current_page: 1, last_page: 1 });
    const [late, no, yes] = all.items;
    expect(no).toMatchObject({
      id: rejected.paymentId,
      method: 'PAYMENT_FORM',
      status: 'FAILED',
      failure_reason: 'La referencia no aparece en el banco',
      order: { id: rejected.orderId },
      client: { name: 'Beto Rechazado' },
      reported_values: expect.arrayContaining([expect.objectContaining({ value: 'Beto Rechazado' })]),
      review: {
        outcome: 'REJECTED',
        reason: 'La referencia no aparece en el banco',
        reviewed_at: '2026-03-03T12:00:00.000Z',
        admin: { id: local.admin.id, name: local.admin.name },
      },
    });
    expect(no).not.toHaveProperty('actionable');
    expect(yes).toMatchObject({
      id: approved.paymentId,
      status: 'CONFIRMED',
      order: { id: approved.orderId, status: 'CONFIRMED' },
      review: {
        outcome: 'APPROVED',
        reason: 'Transferencia verificada en el banco',
        reviewed_at: '2026-03-02T12:00:00.000Z',
        admin: { id: root.admin.id, name: root.admin.name },
      },
    });
    expect(late.review.reviewed_at).toBe('2026-03-04T02:00:00.000Z');
  });

  it('filters by outcome, method and the day of the decision in the settlement time zone, and pages', async () => {
    expect(ids(await reviewed('?outcome=APPROVED'))).toEqual([lateApproved.paymentId, approved.paymentId]);
    expect(ids(await reviewed('?outcome=REJECTED'))).toEqual([rejected.paymentId]);
    expect(ids(await reviewed('?method=PAYMENT_FORM&outcome=REJECTED'))).toEqual([rejected.paymentId]);
    expect(ids(await reviewed('?method=EXCHANGE_PAY'))).toEqual([]);
    // 02:00 UTC on 4 March is still 3 March in Caracas.
    expect(ids(await reviewed('?date_from=2026-03-03&date_to=2026-03-03'))).toEqual([
      lateApproved.paymentId,
      rejected.paymentId,
    ]);
    expect(ids(await reviewed('?date_to=2026-03-02'))).toEqual([approved.paymentId]);
    expect(ids(await reviewed('?date_from=2026-03-04'))).toEqual([]);
    const second = await reviewed('?limit=1&page=2');
    expect([ids(second), second.meta]).toEqual([
      [rejected.paymentId],
      { total: 3, per_page: 1, current_page: 2, last_page: 3 },
    ]);
  });

  it('refuses a malformed filter with 422 naming it', async () => {
    for (const [query, field] of [
      ['?outcome=APROBADO', 'outcome'],
      ['?method=PAGO_MOVIL', 'method'],
      ['?date_from=2026-03-04&date_to=2026-03-03', 'date_to'],
      ['?date_from=03/03/2026', 'date_from'],
      ['?limit=101', 'limit'],
    ]) {
      const r = await api.get(`/admin/payments/reviewed${query}`, root.token);
      expect([r.status, Object.keys(r.body.details?.fieldErrors ?? {})], query).toEqual([422, [field]]);
    }
  });

  it("lists only the reviews of the reader's cities; an auditor reads every city; others are refused", async () => {
    const all = [lateApproved.paymentId, rejected.paymentId, approved.paymentId];
    const sameCity = await signInAdmin(t, { superAdmin: false, cityIds: [1] });
    expect(ids(await reviewed('', sameCity.token))).toEqual(all);
    const elsewhere = await signInAdmin(t, { superAdmin: false, cityIds: [VALENCIA] });
    expect(await reviewed('', elsewhere.token)).toMatchObject({ items: [], meta: { total: 0 } });
    const auditor = await signInAdmin(t, { auditor: true });
    expect(ids(await reviewed('', auditor.token))).toEqual(all);

    const client = await signInClient(t);
    const driver = await signInDriver(t);
    expect((await api.get('/admin/payments/reviewed', client.token)).status).toBe(403);
    expect((await api.get('/admin/payments/reviewed', driver.token)).status).toBe(403);
    expect((await api.get('/admin/payments/reviewed')).status).toBe(401);
  });
});
