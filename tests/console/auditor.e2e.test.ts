import type { Page, Request } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { es } from '../../console/src/i18n/es.js';
import { settlementSteps } from '../api/settlementFlows.js';
import { signInAdmin } from '../support/actors.js';
import { consoleSuite, signedInPage } from './consoleBrowser.js';

/**
 * An auditor's console (docs/decisions/0085): only the screens of its read list, and nothing on them that
 * writes, though a failed receipt waits in the tray, where a super admin would retry, annul or mark it paid.
 */
const AUDITOR_NAV = [es.nav.home, es.nav.reports, es.nav.replay, es.nav.settlements, es.nav.tray, es.nav.payments];
/** Every label of a button that writes on the auditor's screens, as an admin sees them. */
const WRITES = [
  es.settlements.run,
  es.settlements.retry,
  es.settlements.annul,
  es.settlements.markExternal,
  es.payments.approve,
  es.payments.reject,
  es.common.save,
];

consoleSuite('auditor', { env: { OFFICIAL_RATE_VES: '36.5' } }, (c) => {
  let page: Page;
  let receiptNumber: string;
  /** Every request the auditor's page sent to the API that was not a read. */
  const writes: string[] = [];

  beforeAll(async () => {
    // A payout the provider rejects (id number ending in 9): the receipt waits in the tray.
    const s = settlementSteps(c.t);
    const driver = await s.driverWithBalance('9', 12.5, 'Conductora Rechazada');
    await s.run('cutoff');
    const failed = s.byDriver((await s.run('payout')).receipts, driver);
    expect(failed.status).toBe('FAILED');
    receiptNumber = failed.receipt_number;
    const auditor = await signInAdmin(c.t, { auditor: true });
    ({ page } = await signedInPage(c.browser, c.t.baseUrl, auditor));
    page.on('request', (r: Request) => {
      if (r.url().includes('/api/v1/') && r.method() !== 'GET') writes.push(`${r.method()} ${r.url()}`);
    });
  }, 120_000);

  const buttonsIn = (p: Page) => p.locator('main button').allTextContents();

  it('the tray offers a super admin its actions on the failed receipt', async () => {
    await c.open('/settlements/tray');
    await expect.poll(() => c.main().getByText(receiptNumber).count()).toBeGreaterThan(0);
    const buttons = (await buttonsIn(c.page)).map((b) => b.trim());
    expect(buttons).toEqual(expect.arrayContaining([es.settlements.annul, es.settlements.markExternal]));
  });

  it('shows an auditor only its screens, and nothing on them that writes', async () => {
    await page.goto(`${c.t.baseUrl}/console/`);
    await expect.poll(() => page.locator('nav.side a').allTextContents()).toEqual(AUDITOR_NAV);
    expect(await page.locator('header').textContent()).toContain(es.signIn.auditor);
    for (const path of ['/', '/reports/orders', '/replay', '/settlements', '/settlements/tray', '/payments']) {
      await page.goto(`${c.t.baseUrl}/console${path}`);
      await page.locator('main h1').first().waitFor();
      if (path === '/settlements/tray') await page.getByText(receiptNumber).first().waitFor();
      const buttons = (await buttonsIn(page)).map((b) => b.trim());
      expect(
        buttons.filter((b) => WRITES.includes(b)),
        path,
      ).toEqual([]);
      expect(await page.locator(`main a[href$="/settlements/config"]`).count(), path).toBe(0);
    }
    // The screens off its list are not there, even by their address.
    for (const path of ['/admins', '/drivers', '/customers', '/exchange-rates', '/settlements/config']) {
      await page.goto(`${c.t.baseUrl}/console${path}`);
      await page.locator('nav.side a').first().waitFor();
      expect(await page.locator('main form').count(), path).toBe(0);
    }
    expect(writes).toEqual([]);
  });
});
