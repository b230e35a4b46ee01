import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { es } from '../../console/src/i18n/es.js';
import { settlementSteps } from '../api/settlementFlows.js';
import { signInClient, signInDriver, type SignedInDriver, type SignedInUser } from '../support/actors.js';
import { call, confirmedOrder, onlineDriver, orderBody } from '../support/orderFlows.js';
import { consoleSuite, seriousViolations, signedInPage } from './consoleBrowser.js';

/**
 * The console as a Venezuelan operator and an outside auditor use it (issue 45): amounts typed the local
 * way at every money input whatever the browser's language, KYC documents opened before approval, every
 * row action in reach at 1366 px, every screen usable on a 390 px phone, and no code or English sentence
 * where a person reads.
 */
const must = (what: string, r: { status: number; body: any }, status = 200) => {
  if (r.status !== status) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
};

consoleSuite('operator walk', { env: { OFFICIAL_RATE_VES: '36.5' } }, (c) => {
  let refused: { id: string; driver_id: number };
  let debtor: SignedInDriver;
  let applicant: SignedInDriver;
  let customer: SignedInUser;
  let support: { roomId: number; orderId: number };

  beforeAll(async () => {
    const api = call(c.t);
    const s = settlementSteps(c.t);
    // A receipt whose payout the bank refused (the simulator refuses id numbers ending in 9): in the tray.
    const payee = await s.driverWithBalance('9', 12.5, 'Conductora Rechazada');
    await s.run('cutoff');
    refused = s.byDriver((await s.run('payout')).receipts, payee);
    debtor = await signInDriver(c.t, { name: 'Ramona Débito' });
    customer = await signInClient(c.t, undefined, 'Carmen Chacón');
    // A driver awaiting KYC review, with uploaded files.
    applicant = await signInDriver(c.t, { name: 'Solicitante Con Archivos', approved: false });
    const asApplicant = (method: string, path: string, body: unknown) =>
      c.t.request(method, `/api/v1${path}`, { token: applicant.token, body });
    must('profile', await asApplicant('PUT', '/driver/profile', { plate: 'KYC0001', capacityLiters: 8000, cityId: 1 }));
    for (const type of ['ID_FRONT', 'LICENSE'])
      must(
        'document',
        await asApplicant('POST', '/driver/documents', {
          type,
          expiresAt: '2099-12-31',
          fileUrl: `https://archivos.example/kyc/${type}.pdf`,
        }),
        201,
      );
    // A reported manual payment awaiting review, and one already approved.
    const forms = must('forms', await api.get('/payment-forms', c.root.token));
    const usdFormId = forms.forms.find((f: { currency: string }) => f.currency === 'USD').id;
    const reportedPayment = async (payerName: string) => {
      const payer = await signInClient(c.t, undefined, payerName);
      const driver = await onlineDriver(c.t);
      const created = must(
        'order',
        await api.post('/orders', payer.token, orderBody({ paymentMethod: 'PAYMENT_FORM', paymentFormId: usdFormId })),
        201,
      );
      const offer = must('bid', await api.post(`/orders/${created.order.id}/accept`, driver.token, {}), 201).offer;
      must('accept', await api.post(`/orders/offers/${offer.id}/accept`, payer.token));
      return must(
        'report',
        await api.post(`/orders/${created.order.id}/payment/form`, payer.token, {
          values: [
            { index: 1, value: 'Ana Pérez' },
            { index: 2, value: 'ana@example.com' },
            { index: 3, value: `ZL-${created.order.id}0000` },
          ],
        }),
      ).payment as { id: number };
    };
    await reportedPayment('Pagadora Formulario');
    const approved = await reportedPayment('Pagadora Aprobada');
    must(
      'approve',
      await api.post(`/admin/payments/${approved.id}/approve`, c.root.token, {
        reason: 'Transferencia vista en el estado de cuenta',
      }),
    );
    // A client's support conversation waiting in the pool.
    const f = await confirmedOrder(c.t);
    const room = must(
      'room',
      await api.post(`/orders/${f.orderId}/chat-rooms`, f.client.token, { type: 'ORDER_ADMIN_CLIENT_SUPPORT' }),
    );
    const roomId: number = room.room.id;
    must(
      'message',
      await api.post(`/chat-rooms/${roomId}/messages`, f.client.token, { content: 'Necesito ayuda' }),
      201,
    );
    support = { roomId, orderId: f.orderId };
  }, 180_000);

  const walletOf = async (driverId: number) =>
    must('wallet', await c.t.request('GET', `/api/v1/admin/drivers/${driverId}/wallet`, { token: c.root.token }))
      .wallet as { balanceUSD: number };
  const creditOf = async (id: number) =>
    must(
      'credit',
      await c.t.request('GET', `/api/v1/admin/customers/${id}/credit/transactions`, { token: c.root.token }),
    ).items as { amount_usd: number; direction: string }[];

  /** Each money input reads 12,50 as twelve and a half and refuses 1.250, in the page's browser language. */
  const moneyInputs = async (page: Page, locale: string, book: boolean) => {
    const main = page.locator('main');
    const open = (path: string) => page.goto(`${c.t.baseUrl}/console${path}`);
    // Conductores › Ajustar saldo.
    await open(`/drivers/${debtor.driverId}`);
    const wallet = main.getByRole('form', { name: es.drivers.adjust });
    await wallet.getByLabel(es.drivers.amount).fill('1.250');
    await wallet.getByLabel(es.common.reason).fill('Devolución de efectivo entregado en oficina');
    await wallet.getByRole('button', { name: es.drivers.adjust }).click();
    await wallet.getByText(es.amount.ambiguous('1.250', '1250', '1,25')).waitFor();
    await wallet.getByLabel(es.drivers.amount).fill('12,50');
    await wallet.getByRole('button', { name: es.drivers.adjust }).click();
    const walletConfirm = wallet.getByRole('alertdialog', { name: es.drivers.adjustConfirmTitle });
    await walletConfirm.getByText(es.drivers.adjustConfirm('+US$ 12,50'), { exact: true }).waitFor();
    if (book) {
      await walletConfirm.getByRole('button', { name: es.common.confirm }).click();
      await wallet.getByText(es.drivers.adjusted).waitFor();
      expect((await walletOf(debtor.driverId)).balanceUSD, locale).toBe(12.5);
      // A debit past the balance says where it leaves the wallet before it is confirmed.
      await wallet.getByLabel(es.drivers.direction).selectOption('DEBIT');
      await wallet.getByLabel(es.drivers.amount).fill('20');
      await wallet.getByLabel(es.common.reason).fill('Cobro de deuda en efectivo pendiente');
      await wallet.getByRole('button', { name: es.drivers.adjust }).click();
      await walletConfirm.getByText(es.amount.belowZero('US$ -7,50')).waitFor();
    }
    await walletConfirm.getByRole('button', { name: es.common.cancel }).click();

    // Clientes › Ajustar crédito: confirmed, booked once however often Confirmar is clicked.
    await open(`/customers/${customer.user.id}`);
    const credit = main.getByRole('form', { name: es.customers.adjust });
    await credit.getByLabel(es.customers.amount).fill('5,00');
    await credit.getByLabel(es.common.reason).fill('Compensación por retraso en la entrega');
    await credit.getByRole('button', { name: es.customers.adjust }).click();
    const creditConfirm = credit.getByRole('alertdialog', { name: es.customers.adjustConfirmTitle });
    await creditConfirm.getByText(es.customers.adjustConfirm('+US$ 5,00', es.codes.ANY), { exact: true }).waitFor();
    if (book) {
      await creditConfirm.getByRole('button', { name: es.common.confirm }).dblclick();
      await credit.getByText(es.customers.adjusted).waitFor();
      await main.getByRole('cell', { name: '+US$ 5,00' }).waitFor();
      expect(await creditOf(customer.user.id)).toEqual([
        expect.objectContaining({ amount_usd: 5, direction: 'CREDIT' }),
      ]);
      await credit.getByLabel(es.customers.type).selectOption('debit');
      await credit.getByLabel(es.customers.amount).fill('7,5');
      await credit.getByLabel(es.common.reason).fill('Corrección de una compensación duplicada');
      await credit.getByRole('button', { name: es.customers.adjust }).click();
      await creditConfirm.getByText(es.amount.belowZero('US$ -2,50')).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
    }
    await creditConfirm.getByRole('button', { name: es.common.cancel }).click();

    // Promociones › Nueva campaña.
    await open('/promotions/new');
    const campaign = main.getByRole('form', { name: es.promotions.new });
    await campaign.getByLabel(es.promotions.name).fill('Campaña de prueba');
    await campaign.getByLabel(es.promotions.milestone).fill('3');
    await campaign.getByLabel(es.promotions.amount).fill('7,50');
    await campaign.getByRole('button', { name: es.common.save }).click();
    await campaign.getByText(es.promotions.createConfirm('US$ 7,50', 'CLIENT', 3)).waitFor();
    await campaign.getByRole('button', { name: es.common.cancel }).click();

    // Tasa de cambio.
    await open('/exchange-rates');
    const rate = main.getByRole('form', { name: es.rates.new });
    await rate.getByLabel(es.rates.rateInput).fill('36,50');
    await rate.getByRole('button', { name: es.rates.new }).click();
    await rate.getByText(es.rates.confirm('Bs. 36,50')).waitFor();
    await rate.getByRole('button', { name: es.common.cancel }).click();

    // Liquidaciones › Configuración: the minimum balance, es-VE thousands and decimals.
    await open('/settlements/config');
    await main.getByLabel(es.settlements.minBalance).fill('1.250');
    await main.getByRole('button', { name: es.common.save }).click();
    await main.getByText(es.amount.ambiguous('1.250', '1250', '1,25')).waitFor();
    if (book) {
      await main.getByLabel(es.settlements.minBalance).fill('1.250,50');
      await main.getByRole('button', { name: es.common.save }).click();
      await main.getByText(es.settlements.saved).waitFor();
      const config = must(
        'config',
        await c.t.request('GET', '/api/v1/admin/settlements/config', { token: c.root.token }),
      ).config;
      expect(config.min_balance_usd).toBe(1250.5);
    }

    // Reportes › Conductores: a money filter.
    await open('/reports/drivers');
    await main.getByLabel(es.fields.min_balance).fill('2,5');
    await main.getByRole('button', { name: es.common.filter }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('min_balance')).toBe('2.5');
  };

  it.each([
    ['English', 'en-US', false],
    ['Spanish', 'es-VE', true],
  ] as const)(
    'reads amounts typed the Venezuelan way at every money input, with the browser in %s',
    async (_, locale, book) => {
      const { page, pageErrors } = await signedInPage(c.browser, c.t.baseUrl, c.root, { locale });
      await moneyInputs(page, locale, book);
      expect(pageErrors, locale).toEqual([]);
      await page.context().close();
    },
    180_000,
  );

  it('opens each uploaded KYC document before the approval can be confirmed', async () => {
    // The files live with an outside store: the test answers for it.
    await c.page
      .context()
      .route('https://archivos.example/**', (route) =>
        route.fulfill({ status: 200, contentType: 'application/pdf', body: '%PDF-1.4' }),
      );
    await c.open(`/drivers/${applicant.driverId}`);
    await c.main().getByRole('heading', { level: 1, name: 'Solicitante Con Archivos' }).waitFor();
    await c.main().getByRole('button', { name: es.drivers.approve }).click();
    const confirm = c.main().getByRole('alertdialog', { name: es.drivers.approveConfirmTitle });
    await confirm.getByText(es.drivers.openFirst('Cédula de identidad, Licencia de conducir')).waitFor();
    expect(await confirm.getByRole('button', { name: es.common.confirm }).isDisabled()).toBe(true);
    expect(await seriousViolations(c.page)).toEqual([]);
    for (const doc of ['Cédula de identidad', 'Licencia de conducir']) {
      const opened = c.page.context().waitForEvent('page');
      await c
        .main()
        .getByRole('link', { name: es.drivers.openDocument(doc) })
        .click();
      const tab = await opened;
      expect(tab.url()).toMatch(/^https:\/\/archivos\.example\/kyc\/(ID_FRONT|LICENSE)\.pdf$/);
      await tab.close();
    }
    await confirm.getByRole('button', { name: es.common.confirm }).click();
    await c.main().getByText(es.drivers.approved).waitFor();
    const detail = must(
      'driver',
      await c.t.request('GET', `/api/v1/admin/drivers/${applicant.driverId}`, { token: c.root.token }),
    );
    expect(detail.driver.kycState).toBe('APPROVED');
  });

  it('keeps every row action within the screen at 1366 px', async () => {
    const { page } = await signedInPage(c.browser, c.t.baseUrl, c.root, { viewport: { width: 1366, height: 768 } });
    for (const path of ['/settlements/tray', '/payments', '/payment-forms', '/admins']) {
      await page.goto(`${c.t.baseUrl}/console${path}`);
      const buttons = page.locator('main td.actions button');
      await buttons.first().waitFor();
      for (const box of await buttons.evaluateAll((els) =>
        els.map((e) => {
          const r = e.getBoundingClientRect();
          const wrap = e.closest('.table-wrap')!.getBoundingClientRect();
          return { right: r.right, wrapRight: wrap.right, text: e.textContent };
        }),
      )) {
        expect(box.right, `${path}: ${box.text}`).toBeLessThanOrEqual(Math.min(1366, box.wrapRight) + 0.5);
      }
    }
    await page.context().close();
  });

  it("adds up a receipt's figures on screen, and gives a support room its order's context", async () => {
    const receipt = must(
      'receipt',
      await c.t.request('GET', `/api/v1/admin/settlements/receipts/${refused.id}`, { token: c.root.token }),
    ).receipt;
    await c.open(`/settlements/receipts/${refused.id}`);
    await c.main().getByLabel(es.settlements.figures).waitFor();
    const text = await c.main().getByLabel(es.settlements.figures).innerText();
    // A wallet adjustment only: no commission, no solidary share, the adjustment is the net.
    expect(text).toContain(es.settlements.commissionSplit('US$ 0,00', '16', 'US$ 0,00'));
    expect(text).toContain('+US$ 12,50');
    // Who is paid: the beneficiary's name and cédula as the receipt froze them.
    const page = await c.main().innerText();
    expect(page).toContain(receipt.beneficiary_name);
    expect(page).toContain(receipt.beneficiary_id_number);
    await c.main().getByRole('cell', { name: 'Bs. 36,50' }).first().waitFor();
    await c.main().getByRole('cell', { name: es.settlements.lineTypes.ADJUSTMENT }).first().waitFor();

    await c.open(`/support/rooms/${support.roomId}`);
    const context = c.main().getByLabel(es.support.context);
    await expect.poll(() => context.innerText()).toContain(es.support.plate);
    const room = must(
      'room',
      await c.t.request('GET', `/api/v1/admin/chat-rooms/${support.roomId}`, { token: c.root.token }),
    );
    expect(await context.innerText()).toContain(room.order.client.phone);
    expect(await context.innerText()).toContain(room.order.driver.plate);
    await context.getByRole('link', { name: `#${support.orderId}` }).waitFor();
    await c.main().getByText(es.support.sendClaims).waitFor();
    expect(await seriousViolations(c.page)).toEqual([]);
  });

  /** Every screen, with the data above on it. */
  const screens = () => [
    '/',
    ...['orders', 'cancellations', 'intents', 'operational', 'drivers', 'documents', 'performance'].map(
      (r) => `/reports/${r}`,
    ),
    '/replay',
    `/replay/receipt/${refused.id}`,
    `/replay/wallet/${refused.driver_id}`,
    `/replay/order/${support.orderId}`,
    '/settlements',
    `/settlements/receipts/${refused.id}`,
    '/settlements/tray',
    '/settlements/config',
    '/payments',
    '/payments/reviewed',
    '/support',
    `/support/rooms/${support.roomId}`,
    '/drivers',
    `/drivers/${refused.driver_id}`,
    '/customers',
    `/customers/${customer.user.id}`,
    '/exchange-rates',
    '/stations',
    '/stations/new',
    '/stations/import',
    '/promotions',
    '/promotions/new',
    '/payment-forms',
    '/admins',
  ];

  /** Waits until the screen has its heading and nothing is loading. */
  const settled = async (page: Page) => {
    await page.locator('main h1').first().waitFor();
    await expect
      .poll(() => page.locator('main').innerText(), { timeout: 10_000 })
      .not.toMatch(new RegExp(`${es.common.loading}|…$`));
  };

  /** The words a person reads: visible text and the choices of lists, not identifiers shown as such. */
  const readText = (page: Page) =>
    page.evaluate(() => {
      const out: string[] = [];
      const skip = 'code, pre, script, style, [translate="no"], input, textarea';
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const el = n.parentElement;
        if (!el || el.closest(skip) || !n.textContent?.trim()) continue;
        if (el.closest('option') ? false : !el.checkVisibility()) continue;
        out.push(n.textContent.trim());
      }
      for (const el of document.querySelectorAll('[aria-label], [title], [placeholder]'))
        for (const a of ['aria-label', 'title', 'placeholder']) if (el.getAttribute(a)) out.push(el.getAttribute(a)!);
      return out;
    });

  // What a code or an English sentence looks like on a Spanish screen. A code labelled ("AC04: cuenta
  // cerrada") is a label; acronyms operators read (KYC, RCV, IVA, PIN, CSV, XLSX, RIF, USD, USDT) and bank
  // names (DelSur) are words.
  const RAW = [
    /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/, // PENDING_REVIEW, ID_FRONT
    /\b[a-z]+(?:_[a-z]+)+\b/, // en_linea, mark_external
    /\b(?!DelSur\b)[A-Z][a-z]+(?:[A-Z][a-z]+)+\b/, // ReceiptIssued
    /\b(?!(?:KYC|RCV|IVA|PIN|CSV|XLSX|RIF|USD|USDT|JSON|AGUA|GASOLINA|POTABLE|INDUSTRIAL)\b)[A-Z]{4,}\b(?!:)/, // ORDER, ACCP
    /\b(?:the|holds|file|event|events|failed|confirmed|pending|receipt|driver|customer|must|should|cannot|with|without|from|this|that|your|please|invalid|required|expected|received|undefined|null|NaN|true|false|unknown)\b/i,
  ];

  it('shows every screen on a 390 px phone without sideways scrolling, and no code or English where a person reads', async () => {
    const { page, pageErrors } = await signedInPage(c.browser, c.t.baseUrl, c.root, {
      viewport: { width: 390, height: 844 },
    });
    const found: string[] = [];
    for (const path of screens()) {
      await page.goto(`${c.t.baseUrl}/console${path}`);
      await settled(page);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `${path} is ${width} px wide`).toBeLessThanOrEqual(390);
      // The menu is one scrolling row: the work starts near the top of a short screen.
      expect((await page.locator('main').boundingBox())!.y, path).toBeLessThan(160);
      for (const text of await readText(page))
        for (const pattern of RAW) {
          const m = pattern.exec(text);
          if (m) found.push(`${path}: "${m[0]}" in "${text.slice(0, 120)}"`);
        }
    }
    expect(found).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.context().close();
  }, 240_000);
});
