import { beforeAll, expect, it } from 'vitest';
import { es } from '../../console/src/i18n/es.js';
import { signInAdmin, signInClient, type SignedInAdmin } from '../support/actors.js';
import { call, onlineDriver, orderBody } from '../support/orderFlows.js';
import { consoleSuite, seriousViolations, signedInPage } from './consoleBrowser.js';

/**
 * Reviewed payments in the console (issue 45 item 9, docs/decisions/0103): after an operator decides on a
 * reported payment it leaves the queue and is found under Revisados, with who decided, when, the outcome
 * and the reason in Spanish; the list filters by outcome from the address bar, reads on a phone, and an
 * auditor reads it without any action.
 */
const p = es.payments;

const must = (what: string, r: { status: number; body: any }, status = 200) => {
  if (r.status !== status) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
};

consoleSuite('reviewed payments', { env: { OFFICIAL_RATE_VES: '36.5' } }, (c) => {
  let toReject: number;
  let approvedOrder: number;
  let cityAdmin: SignedInAdmin;

  /** A Caracas order paid by the USD form, its payment reported by `payer`: its order id. */
  const reported = async (payer: string) => {
    const api = call(c.t);
    const forms = must('forms', await api.get('/payment-forms', c.root.token));
    const usdFormId = forms.forms.find((f: { currency: string }) => f.currency === 'USD').id;
    const client = await signInClient(c.t, undefined, payer);
    const driver = await onlineDriver(c.t);
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
          { index: 1, value: payer },
          { index: 2, value: 'pagos@example.com' },
          { index: 3, value: `ZL-${orderId}0000` },
        ],
      }),
    ).payment;
    return { orderId, paymentId: payment.id as number };
  };

  beforeAll(async () => {
    toReject = (await reported('Rosa Rechazo')).orderId;
    // Approved by a Caracas admin through the API: the list names whoever decided.
    cityAdmin = await signInAdmin(c.t, { superAdmin: false, cityIds: [1] });
    const approved = await reported('Alba Aprobación');
    approvedOrder = approved.orderId;
    must(
      'approve',
      await call(c.t).post(`/admin/payments/${approved.paymentId}/approve`, cityAdmin.token, {
        reason: 'Transferencia vista en el estado de cuenta',
      }),
    );
  }, 120_000);

  const rowOf = (orderId: number) =>
    c.main().locator('tbody tr', { has: c.page.getByRole('link', { name: `#${orderId}`, exact: true }) });

  it('rejects a reported payment, then finds it under Revisados with who, when, the outcome and the reason', async () => {
    await c.open('/payments');
    await c
      .main()
      .getByRole('button', { name: p.rejectOrder(toReject) })
      .click();
    const form = c.main().getByRole('form', { name: p.rejectOrder(toReject) });
    await form.getByLabel(es.common.reason).fill('La referencia no aparece en el banco');
    await form.getByRole('button', { name: es.common.confirm }).click();
    await c.main().getByText(p.rejected).waitFor();

    await c
      .main()
      .getByRole('navigation', { name: es.nav.payments })
      .getByRole('link', { name: p.reviewedTab })
      .click();
    await c.main().getByRole('heading', { level: 1, name: p.reviewedTitle }).waitFor();
    const rejected = rowOf(toReject);
    await rejected.waitFor();
    const cells = async (row: typeof rejected) =>
      Object.fromEntries(
        await row.locator('td').evaluateAll((tds) => tds.map((td, i) => [i, (td as HTMLElement).innerText.trim()])),
      ) as Record<number, string>;
    const headers = (await c.main().locator('thead th').allInnerTexts()).map((h) => h.trim());
    const at = (name: string) => headers.indexOf(name);
    const r = await cells(rejected);
    expect(r[at(p.outcomeLabel)]).toBe(p.outcome.REJECTED);
    expect(r[at(p.reviewedBy)]).toBe(c.root.admin.name);
    expect(r[at(es.common.reason)]).toBe('La referencia no aparece en el banco');
    expect(r[at(p.reviewedAt)]).toMatch(/^\d{1,2}\/\d{1,2}\/\d{2,4}/);
    expect(r[at(p.client)]).toContain('Rosa Rechazo');
    expect(r[at(p.currentStatus)]).toBe(es.enums.paymentStatus.FAILED);
    const a = await cells(rowOf(approvedOrder));
    expect([a[at(p.outcomeLabel)], a[at(p.reviewedBy)], a[at(es.common.reason)]]).toEqual([
      p.outcome.APPROVED,
      cityAdmin.admin.name,
      'Transferencia vista en el estado de cuenta',
    ]);
    // Newest decision first: the rejection came after the approval.
    expect(await c.main().locator('tbody tr').first().innerText()).toContain(`#${toReject}`);
    expect(await seriousViolations(c.page)).toEqual([]);
  });

  it('filters by outcome from the address bar', async () => {
    await c.open('/payments/reviewed');
    await rowOf(toReject).waitFor();
    await c.main().getByLabel(p.outcomeLabel).selectOption('APPROVED');
    await c.main().getByRole('button', { name: es.common.filter }).click();
    await expect.poll(() => new URL(c.page.url()).searchParams.get('outcome')).toBe('APPROVED');
    await expect.poll(() => rowOf(toReject).count()).toBe(0);
    await rowOf(approvedOrder).waitFor();
    // The address keeps the filter: a reload shows the same list.
    await c.page.reload();
    await rowOf(approvedOrder).waitFor();
    expect(await rowOf(toReject).count()).toBe(0);
    expect(await c.main().getByLabel(p.outcomeLabel).inputValue()).toBe('APPROVED');
  });

  it('reads on a 390 px phone without sideways scrolling, and an auditor reads it with no action', async () => {
    const phone = await signedInPage(c.browser, c.t.baseUrl, c.root, { viewport: { width: 390, height: 844 } });
    await phone.page.goto(`${c.t.baseUrl}/console/payments/reviewed`);
    await phone.page.locator('main tbody tr').first().waitFor();
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await seriousViolations(phone.page)).toEqual([]);
    await phone.page.context().close();

    const auditor = await signInAdmin(c.t, { auditor: true });
    const { page, pageErrors } = await signedInPage(c.browser, c.t.baseUrl, auditor);
    await page.goto(`${c.t.baseUrl}/console/payments`);
    await page.getByRole('link', { name: p.reviewedTab }).click();
    await page.locator('main tbody tr', { hasText: 'La referencia no aparece en el banco' }).waitFor();
    expect(await page.locator('main button', { hasText: new RegExp(`^(${p.approve}|${p.reject})$`) }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await page.context().close();
    expect(c.pageErrors).toEqual([]);
  });
});
