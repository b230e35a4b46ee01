import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { es } from '../../console/src/i18n/es.js';
import { settlementSteps } from '../api/settlementFlows.js';
import { signInAdmin, signInClient } from '../support/actors.js';
import { call, confirmedOrder, onlineDriver, orderBody } from '../support/orderFlows.js';
import { startTestService, TEST_SUPER_ADMIN, type TestService } from '../support/testService.js';
import { openSocket, type Socket } from '../support/wsClient.js';
import { chromiumMissing, ensureConsoleBuilt, launchChromium, seriousViolations } from './consoleBrowser.js';

/**
 * The back-office console in headless Chromium against the real service (issue 22): one browser, one
 * page walking the screens as a back-office employee would, each screen checked with axe-core.
 */
const missing = chromiumMissing();
if (missing) console.log(`console browser tests skipped: ${missing}`);

const must = (what: string, r: { status: number; body: any }, status = 200) => {
  if (r.status !== status) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
};

describe.skipIf(missing !== null)('back-office console (Chromium)', () => {
  let t: TestService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  const cspViolations: string[] = [];
  let failedReceipt: { id: string | number; receipt_number: string; driver_id: number };
  let paymentOrderId: number;
  let paymentClientPhone: string;
  let support: { roomId: number; orderId: number; client: { token: string } };

  const url = (path: string) => `${t.baseUrl}/console${path}`;
  const accessible = async (screen: string) => expect(await seriousViolations(page), `axe on ${screen}`).toEqual([]);
  const main = () => page.locator('main');

  beforeAll(async () => {
    ensureConsoleBuilt();
    t = await startTestService({ env: { OFFICIAL_RATE_VES: '36.5' } });
    const api = call(t);
    const admin = await signInAdmin(t);
    // A receipt whose payout the provider refused (the simulator refuses id numbers ending in 9): FAILED, business.
    const s = settlementSteps(t);
    const refused = await s.driverWithBalance('9', 12.5, 'Conductora Rechazada');
    await s.run('cutoff');
    const payout = await s.run('payout');
    failedReceipt = s.byDriver(payout.receipts, refused);
    // A reported manual payment (PAYMENT_FORM) awaiting review.
    const forms = must('forms', await api.get('/payment-forms', admin.token));
    const usdFormId = forms.forms.find((f: { currency: string }) => f.currency === 'USD').id;
    const client = await signInClient(t);
    paymentClientPhone = client.user.phone;
    const driver = await onlineDriver(t);
    const created = must(
      'order',
      await api.post('/orders', client.token, orderBody({ paymentMethod: 'PAYMENT_FORM', paymentFormId: usdFormId })),
      201,
    );
    const offer = must('bid', await api.post(`/orders/${created.order.id}/accept`, driver.token, {}), 201).offer;
    must('accept', await api.post(`/orders/offers/${offer.id}/accept`, client.token));
    const values = [
      { index: 1, value: 'Ana Pérez' },
      { index: 2, value: 'ana@example.com' },
      { index: 3, value: `ZL-${created.order.id}0000` },
    ];
    paymentOrderId = created.order.id;
    must('report', await api.post(`/orders/${created.order.id}/payment/form`, client.token, { values }));
    // A client's support conversation, waiting in the pool.
    const f = await confirmedOrder(t);
    const room = must(
      'support room',
      await api.post(`/orders/${f.orderId}/chat-rooms`, f.client.token, { type: 'ORDER_ADMIN_CLIENT_SUPPORT' }),
    );
    must(
      'client message',
      await api.post(`/chat-rooms/${room.room.id}/messages`, f.client.token, {
        content: 'Necesito ayuda con mi pedido',
      }),
      201,
    );
    support = { roomId: room.room.id, orderId: f.orderId, client: f.client };

    browser = await launchChromium();
    context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      acceptDownloads: true,
      locale: 'es-VE',
    });
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it(
    'serves the build with a strict policy: hashed assets immutable, ' +
      'index.html never cached, client routes fall back to the app',
    async () => {
      const index = await fetch(url('/reports/orders'));
      expect(index.status).toBe(200);
      expect(index.headers.get('cache-control')).toBe('no-cache');
      const csp = index.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toMatch(/connect-src 'self' ws:\/\/127\.0\.0\.1:\d+/);
      const html = await index.text();
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)![1];
      const script = await fetch(t.baseUrl + asset, { headers: { 'accept-encoding': 'br' } });
      expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(script.headers.get('content-encoding')).toBe('br');
      expect(script.headers.get('content-type')).toMatch(/javascript/);
      expect(await script.text()).toContain('createRoot');
      expect(
        (await fetch(t.baseUrl + asset, { headers: { 'accept-encoding': 'identity' } })).headers.get(
          'content-encoding',
        ),
      ).toBeNull();
      expect((await fetch(url('/assets/missing.js'))).status).toBe(404);
      expect((await fetch(`${t.baseUrl}/console`, { redirect: 'manual' })).headers.get('location')).toBe('/console/');
    },
  );

  it('signs in with the admin JWT', async () => {
    await page.goto(url('/'));
    await page.getByLabel(es.signIn.email).waitFor();
    await accessible('sign-in');
    await page.getByLabel(es.signIn.email).fill(TEST_SUPER_ADMIN.email);
    await page.getByLabel(es.signIn.password).fill('wrong-password');
    await page.getByRole('button', { name: es.signIn.submit }).click();
    await page.getByText(es.signIn.wrong).waitFor();
    await page.getByLabel(es.signIn.password).fill(TEST_SUPER_ADMIN.password);
    await page.getByRole('button', { name: es.signIn.submit }).click();
    await page.getByRole('button', { name: es.nav.signOut }).waitFor();
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect(await page.evaluate(() => JSON.parse(sessionStorage.getItem('console.session')!).token)).toMatch(
      /^[\w-]+\.[\w-]+\.[\w-]+$/,
    );
    await accessible('home');
  });

  it('opens the seven reports, with totals, charts and an export', async () => {
    for (const key of [
      'orders',
      'cancellations',
      'intents',
      'operational',
      'drivers',
      'documents',
      'performance',
    ] as const) {
      await page.goto(url(`/reports/${key}`));
      await main().getByRole('heading', { level: 1, name: es.reports.names[key] }).waitFor();
      await main().locator('table').waitFor();
      expect(await main().getByRole('alert').count(), key).toBe(0);
      await accessible(`report ${key}`);
    }
    // The operational report draws its daily series and the comparison (one chart per unit: counts,
    // dollars, percentage); the performance report its ranking.
    await page.goto(url('/reports/operational'));
    await expect.poll(() => main().locator('figure.chart canvas').count(), { timeout: 10_000 }).toBe(4);
    await page.goto(url('/reports/performance'));
    await expect.poll(() => main().locator('figure.chart canvas').count(), { timeout: 10_000 }).toBe(1);
    // Sorting goes to the server (the address keeps it), and the export downloads the API's file.
    await page.goto(url('/reports/orders'));
    await main()
      .getByRole('button', { name: new RegExp(`^${es.fields.liters_requested}`) })
      .click();
    await page.waitForURL(/sort=liters_requested&direction=desc/);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      main().getByRole('button', { name: es.reports.exportCsv }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^reporte_ordenes_.+\.csv$/);
    expect(readFileSync((await download.path())!, 'utf8')).toContain('Fecha creación');
  }, 120_000);

  it("walks a receipt's replay with the slider and the timeline, changing nothing", async () => {
    await page.goto(url(`/replay/receipt/${failedReceipt.id}`));
    const slider = page.getByLabel(es.replay.slider);
    await slider.waitFor();
    const status = main().locator('.kv dd .badge').first();
    await expect.poll(() => status.getAttribute('data-status')).toBe('FAILED');
    await accessible('receipt replay');
    await slider.focus();
    await page.keyboard.press('Home');
    await expect.poll(() => status.getAttribute('data-status')).toBe('GENERATED');
    // Clicking the last event of the timeline brings the receipt back to now.
    await main().locator('.timeline li').last().getByRole('button').click();
    await expect.poll(() => status.getAttribute('data-status')).toBe('FAILED');
  });

  it('retries and annuls a failed receipt from the tray after a second look at amount and beneficiary', async () => {
    await page.goto(url('/settlements/tray'));
    const number = failedReceipt.receipt_number;
    await main()
      .getByRole('button', { name: `${es.settlements.retry} ${number}` })
      .click();
    const retry = main().getByRole('form', { name: `${es.settlements.retry}: ${number}` });
    // The second look: 12,50 USD at 36,5 Bs/USD to the driver's Pago Móvil.
    await expect.poll(() => retry.locator('dd[data-field="amount_usd"]').textContent()).toBe('US$ 12,50');
    expect(await retry.locator('dd[data-field="amount_bs"]').textContent()).toBe('Bs. 456,25');
    expect(await retry.locator('dd[data-field="beneficiary_name"]').textContent()).toBe('Conductora Rechazada');
    expect(await retry.locator('dd[data-field="beneficiary_id_number"]').textContent()).toBe('V12345679');
    expect(await retry.locator('dd[data-field="beneficiary_bank"]').textContent()).toBe('0102 · Banco de Venezuela');
    expect(await retry.locator('dd[data-field="payout_account"]').textContent()).toBe('04141234567');
    await accessible('tray retry confirmation');
    // Not sent until the operator says they checked.
    await retry.getByRole('button', { name: es.common.confirm }).click();
    await retry.getByText(es.validation.checkFirst).waitFor();
    await retry.getByLabel(es.settlements.checked).check();
    await retry.getByRole('button', { name: es.common.confirm }).click();
    await main().getByText(es.settlements.retried(es.enums.receiptStatus.FAILED)).waitFor();
    await accessible('settlement tray');
    await main()
      .getByRole('button', { name: `${es.settlements.annul} ${number}` })
      .click();
    const form = main().getByRole('form', { name: `${es.settlements.annul}: ${number}` });
    await form.locator('dd[data-field="amount_bs"]').waitFor();
    const reason = form.getByLabel(es.common.reason);
    // A reason of two letters is not a reason: the field says so, nothing is sent.
    await reason.fill('ok');
    await form.getByLabel(es.settlements.checked).check();
    await form.getByRole('button', { name: es.common.confirm }).click();
    await expect.poll(() => reason.getAttribute('aria-invalid')).toBe('true');
    await form.getByText(es.validation.reasonLength).waitFor();
    await reason.fill('Cuenta del conductor inválida');
    await form.getByRole('button', { name: es.common.confirm }).click();
    await main().getByText(es.settlements.annulled).waitFor();
    await main().getByText(es.common.empty).waitFor();
    const after = must(
      'receipt',
      await t.request('GET', `/api/v1/admin/settlements/receipts/${failedReceipt.id}`, {
        token: (await signInAdmin(t)).token,
      }),
    );
    expect(after.receipt.status).toBe('VOIDED');
    // The replay names who annulled it (the super admin, by name), not "ADMIN #1".
    const admins = must(
      'admins',
      await t.request('GET', '/api/v1/admin/admins?limit=100', { token: (await signInAdmin(t)).token }),
    );
    const rootAdmin = admins.items.find((a: { email: string }) => a.email === TEST_SUPER_ADMIN.email);
    await page.goto(url(`/replay/receipt/${failedReceipt.receipt_number}`));
    await expect
      .poll(() => main().locator('dd[data-field="actor"]').textContent())
      .toBe(`${rootAdmin.name ?? rootAdmin.email} (${es.replay.roles.ADMIN})`);
    await page.goto(url(`/settlements/receipts/${failedReceipt.id}`));
    await main().getByRole('heading', { name: es.settlements.changes }).waitFor();
    await accessible('receipt detail');
    await page.goto(url('/settlements/config'));
    await main().getByLabel(es.settlements.payoutTime).waitFor();
    await accessible('settlement configuration');
    // Saved unchanged, then with a new payout time: the API takes the form's keys as they are.
    await main().getByRole('button', { name: es.common.save }).click();
    await main().getByText(es.settlements.saved).waitFor();
    await main().getByLabel(es.settlements.payoutTime).fill('19:30');
    await main().getByRole('button', { name: es.common.save }).click();
    await expect
      .poll(
        async () =>
          (await t.request('GET', '/api/v1/admin/settlements/config', { token: (await signInAdmin(t)).token })).body
            .config.payout_time,
      )
      .toBe('19:30');
    // A payout run is not one click: it says what it will pay and waits for the confirmation.
    await page.goto(url('/settlements'));
    await main().getByLabel(es.settlements.runProcess).selectOption('payout');
    await main().getByRole('button', { name: es.settlements.run }).click();
    const dialog = main().getByRole('alertdialog', {
      name: es.settlements.runConfirm(es.settlements.processes.payout),
    });
    await dialog.getByText(es.settlements.runPending(0, 'US$ 0,00')).waitFor();
    await accessible('payout run confirmation');
    await dialog.getByRole('button', { name: es.common.cancel }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    // The README's picture of the replay: the receipt as it stood after its first payout attempt.
    if (process.env.CONSOLE_SCREENSHOT) {
      await page.goto(url(`/replay/receipt/${failedReceipt.id}`));
      const events = main().locator('.timeline li');
      await events.nth(4).waitFor();
      await events.nth(2).getByRole('button').click();
      await main().getByText('(3/').first().waitFor();
      await page.waitForTimeout(300);
      await page.screenshot({ path: process.env.CONSOLE_SCREENSHOT });
    }
  });

  it('approves a reported payment with a reason, after reading the order, the client and what was reported', async () => {
    await page.goto(url('/payments'));
    // The reported values read as the form's labels, not JSON; the row names the client and the address.
    const row = main().locator('tr', { hasText: `ZL-` }).first();
    await row.getByText('Ana Pérez').waitFor();
    expect(await row.textContent()).toContain(orderBody().address);
    expect(await row.textContent()).not.toContain('{');
    await main()
      .getByRole('button', { name: es.payments.approveOrder(paymentOrderId) })
      .click();
    // The form names the order, not the payment's record number.
    await main()
      .getByRole('form', { name: es.payments.approveOrder(paymentOrderId) })
      .waitFor();
    const summary = main().getByRole('definition').filter({ hasText: orderBody().address });
    await summary.first().waitFor();
    expect(await main().locator('dd[data-field="client"]').textContent()).toContain(paymentClientPhone);
    expect(await main().locator('dd[data-field="amount"]').textContent()).toMatch(/^US\$ \d+,\d\d/);
    await main().getByLabel(es.common.reason).fill('Transferencia vista en el banco');
    await main().getByRole('button', { name: es.common.confirm }).click();
    await main().getByText(es.payments.approved).waitFor();
    await accessible('payment review');
  });

  it('claims a conversation and chats with the app user over the websocket', async () => {
    let clientSocket: Socket | undefined;
    try {
      clientSocket = await openSocket(t, { token: support.client.token });
      expect((await clientSocket.subscribe(`chat.rooms.${support.roomId}`)).type).toBe('subscribed');
      await page.goto(url('/support'));
      await main()
        .getByRole('link', { name: new RegExp(`${es.support.order} #${support.orderId}\\b`) })
        .click();
      await main().getByText('Necesito ayuda con mi pedido').waitFor();
      await main().getByText(es.support.live, { exact: true }).waitFor();
      await accessible('support conversation');
      await main().getByRole('button', { name: es.support.claim }).click();
      await main().getByRole('button', { name: es.support.release }).waitFor();
      await main().getByLabel(es.support.message).fill('Hola, soy soporte. ¿En qué le ayudo?');
      await main().getByRole('button', { name: es.support.send }).click();
      const received = await clientSocket.next(
        (f) => f.type === 'message' && JSON.stringify(f.data).includes('soy soporte'),
      );
      expect(received.channel).toBe(`chat.rooms.${support.roomId}`);
      // The app user answers over HTTP; the console shows it without a reload.
      must(
        'client reply',
        await t.request('POST', `/api/v1/chat-rooms/${support.roomId}/messages`, {
          token: support.client.token,
          body: { content: 'Mi pedido no ha llegado' },
        }),
        201,
      );
      await main().getByText('Mi pedido no ha llegado').waitFor({ timeout: 10_000 });
      // Claimed, the conversation left the pool for the admin's own bucket.
      await page.goto(url('/support'));
      await main().getByText(es.common.empty).waitFor();
      await main().getByRole('button', { name: es.support.mine }).click();
      await main()
        .getByRole('link', { name: new RegExp(`${es.support.order} #${support.orderId}\\b`) })
        .waitFor();
      await accessible('support inbox');
    } finally {
      await clientSocket?.close();
    }
  });

  it('shows drivers with their wallet, and customers with credit history and a credit adjustment', async () => {
    await page.goto(url('/drivers'));
    await main().locator('table tbody tr').first().waitFor();
    await accessible('drivers');
    await page.goto(url(`/drivers/${failedReceipt.driver_id}`));
    await main().getByRole('heading', { name: es.drivers.ledger }).waitFor();
    await main().getByText(es.enums.ledgerType.MANUAL_ADJUSTMENT).first().waitFor();
    await accessible('driver detail');
    await page.goto(url(`/replay/wallet/${failedReceipt.driver_id}`));
    await page.getByLabel(es.replay.slider).waitFor();
    await accessible('wallet replay');
    await page.goto(url('/customers'));
    await main().locator('table tbody tr a').first().click();
    const form = main().getByRole('form', { name: es.customers.adjust });
    await form.getByLabel(es.customers.amount).fill('5');
    await form.getByLabel(es.common.reason).fill('corto');
    await form.getByRole('button', { name: es.customers.adjust }).click();
    await expect.poll(() => form.getByLabel(es.common.reason).getAttribute('aria-invalid')).toBe('true');
    await form.getByLabel(es.common.reason).fill('Compensación por retraso en la entrega');
    await form.getByRole('button', { name: es.customers.adjust }).click();
    // Money moves after a second look at the signed amount and the bucket.
    await form
      .getByRole('alertdialog', { name: es.customers.adjustConfirmTitle })
      .getByRole('button', { name: es.common.confirm })
      .click();
    await form.getByText(es.customers.adjusted).waitFor();
    await main().getByRole('cell', { name: '+US$ 5,00' }).first().waitFor();
    await main().getByRole('cell', { name: es.enums.ledgerType.MANUAL_ADJUSTMENT }).first().waitFor();
    await accessible('customer detail');
  });

  it("takes a renewed JWT from an answer's Authorization header, and retries a 503 after its Retry-After", async () => {
    const renewed = (await signInAdmin(t)).token;
    let unavailable = 0;
    await page.route('**/api/v1/admin/drivers?*', async (route) => {
      if (unavailable++ === 0)
        return route.fulfill({
          status: 503,
          headers: { 'retry-after': '1', 'content-type': 'application/json' },
          body: JSON.stringify({ error: 'ServiceUnavailable', message: 'Database unavailable', retryAfterSeconds: 1 }),
        });
      const answer = await route.fetch();
      return route.fulfill({ response: answer, headers: { ...answer.headers(), authorization: `Bearer ${renewed}` } });
    });
    try {
      await page.goto(url('/drivers'));
      await main().locator('table tbody tr').first().waitFor();
      expect(unavailable).toBe(2);
      expect(await page.evaluate(() => JSON.parse(sessionStorage.getItem('console.session')!).token)).toBe(renewed);
    } finally {
      await page.unroute('**/api/v1/admin/drivers?*');
    }
    // The next call carries the renewed token.
    const sent = page.waitForRequest((r) => r.url().includes('/api/v1/admin/customers'));
    await page.goto(url('/customers'));
    expect((await sent).headers().authorization).toBe(`Bearer ${renewed}`);
  });

  it('fits a tablet: the menu wraps above the content and wide tables scroll inside their frame', async () => {
    await page.setViewportSize({ width: 820, height: 1180 });
    try {
      for (const path of ['/reports/orders', `/replay/receipt/${failedReceipt.id}`, '/settlements/tray']) {
        await page.goto(url(path));
        await main().getByRole('heading', { level: 1 }).waitFor();
        await main().locator('table, .timeline').first().waitFor();
        expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(820);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('says 403 plainly, and sends a refused token back to sign-in', async () => {
    const plain = await signInAdmin(t, { superAdmin: false });
    await page.evaluate((s) => sessionStorage.setItem('console.session', JSON.stringify(s)), {
      token: plain.token,
      admin: plain.admin,
    });
    await page.goto(url('/settlements/config'));
    await main().getByText(es.errors.forbidden).waitFor();
    await page.evaluate(() =>
      sessionStorage.setItem(
        'console.session',
        JSON.stringify({ ...JSON.parse(sessionStorage.getItem('console.session')!), token: 'a.b.c' }),
      ),
    );
    await page.goto(url('/reports/orders'));
    await page.getByText(es.errors.sessionExpired).waitFor();
    await page.getByLabel(es.signIn.email).waitFor();
  });

  it('raised no script error and no Content-Security-Policy violation', () => {
    expect(pageErrors).toEqual([]);
    expect(cspViolations).toEqual([]);
  });
});
