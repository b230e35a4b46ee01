import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { es } from '../../console/src/i18n/es.js';
import { signInAdmin, signInDriver, type SignedInAdmin, type SignedInDriver } from '../support/actors.js';
import { startTestService, type TestService } from '../support/testService.js';
import {
  chromiumMissing,
  ensureConsoleBuilt,
  launchChromium,
  seriousViolations,
  signedInPage,
} from './consoleBrowser.js';

/**
 * The home page says what needs attention now, and a report's driver filter is picked by name as the
 * operator types (issue 31).
 */
const missing = chromiumMissing();
if (missing) console.log(`console home browser tests skipped: ${missing}`);

describe.skipIf(missing !== null)('home and pickers (Chromium)', () => {
  let t: TestService;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[];
  let root: SignedInAdmin;
  let driver: SignedInDriver;
  const main = () => page.locator('main');

  beforeAll(async () => {
    ensureConsoleBuilt();
    t = await startTestService();
    root = await signInAdmin(t);
    driver = await signInDriver(t, { name: 'Íngrid Salcedo' });
    // A driver whose documents are in: awaiting the KYC review.
    const applicant = await signInDriver(t, { name: 'Solicitante', approved: false });
    for (const [method, path, body] of [
      ['PUT', '/driver/profile', { plate: 'XY12345', capacityLiters: 8000, cityId: 1 }],
      ['POST', '/driver/documents', { type: 'ID_FRONT', expiresAt: '2099-12-31' }],
      ['POST', '/driver/documents', { type: 'LICENSE', expiresAt: '2099-12-31' }],
    ] as const)
      expect((await t.request(method, `/api/v1${path}`, { token: applicant.token, body })).status).toBeLessThan(300);
    browser = await launchChromium();
    ({ page, pageErrors } = await signedInPage(browser, t.baseUrl, root));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('counts what waits: payments to review, receipts in the tray, support conversations, drivers awaiting KYC', async () => {
    await page.goto(`${t.baseUrl}/console/`);
    const kyc = main().locator('[data-attention="kyc"] .count');
    await expect.poll(() => kyc.textContent()).toBe('1');
    for (const id of ['payments', 'tray', 'support'])
      await expect.poll(() => main().locator(`[data-attention="${id}"] .count`).textContent()).toBe('0');
    expect(await seriousViolations(page)).toEqual([]);
    await main()
      .getByRole('link', { name: new RegExp(es.home.kyc) })
      .click();
    await expect.poll(() => main().locator('table tbody tr').count()).toBe(1);
    await main().getByRole('cell', { name: 'Solicitante' }).waitFor();
  });

  it("filters a report by a driver picked by name, and sends the driver's id", async () => {
    await page.goto(`${t.baseUrl}/console/reports/orders`);
    const picker = main().getByLabel(es.fields.driver_id);
    await picker.fill('ingrid');
    const listId = (await picker.getAttribute('list'))!;
    const option = main().locator(`datalist[id="${listId}"] option`).first();
    await expect.poll(() => option.getAttribute('value')).toContain(`(#${driver.driverId})`);
    await picker.fill((await option.getAttribute('value'))!);
    await expect
      .poll(() => main().locator('input[type="hidden"][name="driver_id"]').inputValue())
      .toBe(String(driver.driverId));
    await main().getByRole('button', { name: es.common.filter }).click();
    await expect.poll(() => page.url()).toMatch(new RegExp(`driver_id=${driver.driverId}\\b`));
    expect(await seriousViolations(page)).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('records an official exchange rate after confirming how it will read', async () => {
    await page.goto(`${t.baseUrl}/console/exchange-rates`);
    const form = main().getByRole('form', { name: es.rates.new });
    await form.getByLabel(es.rates.rateInput).fill('40.25');
    await form.getByRole('button', { name: es.rates.new }).click();
    const confirm = form.getByRole('alertdialog', { name: es.rates.confirmTitle });
    await confirm.getByText(es.rates.confirm('Bs. 40,25')).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await confirm.getByRole('button', { name: es.common.confirm }).click();
    await form.getByText(es.rates.saved).waitFor();
    await main().getByRole('cell', { name: 'Bs. 40,25' }).first().waitFor();
    const rates = await t.request('GET', '/api/v1/admin/exchange-rates?limit=1', { token: root.token });
    expect(rates.body.items[0].rate).toBe(40.25);
    expect(pageErrors).toEqual([]);
  });
});
