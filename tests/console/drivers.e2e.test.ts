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
 * A driver found by name and handled from the console (issue 31): suspended and reinstated, the balance
 * adjusted after a confirmation, KYC rejection offered only while the driver awaits verification, and a
 * document's expiry date shown as the date it is in Caracas' time zone.
 */
const missing = chromiumMissing();
if (missing) console.log(`console drivers browser tests skipped: ${missing}`);

describe.skipIf(missing !== null)('drivers (Chromium)', () => {
  let t: TestService;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[];
  let root: SignedInAdmin;
  let driver: SignedInDriver;
  let applicant: SignedInDriver;
  const main = () => page.locator('main');
  const statusOf = async (id: number) =>
    (await t.request('GET', `/api/v1/admin/drivers/${id}`, { token: root.token })).body.driver.status;

  beforeAll(async () => {
    ensureConsoleBuilt();
    t = await startTestService();
    root = await signInAdmin(t);
    driver = await signInDriver(t, { name: 'Ramón Gutiérrez' });
    await signInDriver(t, { name: 'Otro Conductor' });
    applicant = await signInDriver(t, { name: 'Solicitante Pendiente', approved: false });
    browser = await launchChromium();
    ({ page, pageErrors } = await signedInPage(browser, t.baseUrl, root));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('finds a driver by name as typed (no accents), then suspends and reinstates them', async () => {
    await page.goto(`${t.baseUrl}/console/drivers`);
    await main().locator('table tbody tr').first().waitFor();
    await main().getByLabel(es.drivers.search).fill('ramon gutierrez');
    await expect.poll(() => main().locator('table tbody tr').count()).toBe(1);
    await main().getByRole('link', { name: 'Ramón Gutiérrez' }).click();
    await main().getByRole('heading', { level: 1, name: 'Ramón Gutiérrez' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    // An approved, active driver: no KYC decision on offer, suspension is.
    expect(await main().getByRole('button', { name: es.drivers.reject }).count()).toBe(0);
    expect(await main().getByRole('button', { name: es.drivers.approve }).count()).toBe(0);
    // The licence expires 2099-12-31: that date, not the day before at 8 p.m.
    await main().getByText(`${es.drivers.expires} 31/12/2099`).first().waitFor();
    await main().getByRole('button', { name: es.drivers.suspend }).click();
    const form = main().getByRole('form', { name: es.drivers.suspend });
    await form.getByLabel(es.common.reason).fill('Documentos en revisión por reclamo');
    await form.getByRole('button', { name: es.common.confirm }).click();
    await main().getByText(es.drivers.suspended).waitFor();
    expect(await statusOf(driver.driverId)).toBe('SUSPENDED');
    page.once('dialog', (d) => void d.accept());
    await main().getByRole('button', { name: es.drivers.reinstate }).click();
    await main().getByText(es.drivers.reinstated).waitFor();
    expect(await statusOf(driver.driverId)).toBe('ACTIVE');
  });

  it('adjusts the balance only after confirming the signed amount, once', async () => {
    await page.goto(`${t.baseUrl}/console/drivers/${driver.driverId}`);
    const form = main().getByRole('form', { name: es.drivers.adjust });
    await form.getByLabel(es.drivers.amount).fill('5.7');
    await form.getByLabel(es.common.reason).fill('corto');
    await form.getByRole('button', { name: es.drivers.adjust }).click();
    await form.getByText(es.validation.reasonLength).waitFor();
    await form.getByLabel(es.common.reason).fill('Devolución de efectivo entregado en oficina');
    await form.getByRole('button', { name: es.drivers.adjust }).click();
    const confirm = form.getByRole('alertdialog', { name: es.drivers.adjustConfirmTitle });
    await confirm.getByText(es.drivers.adjustConfirm('+US$ 5,70')).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await confirm.getByRole('button', { name: es.common.confirm }).click();
    await form.getByText(es.drivers.adjusted).waitFor();
    await main().getByRole('cell', { name: '+US$ 5,70' }).waitFor();
    const wallet = await t.request('GET', `/api/v1/admin/drivers/${driver.driverId}/wallet`, { token: root.token });
    expect(wallet.body.wallet.balanceUSD).toBe(5.7);
  });

  it('offers the KYC rejection to a driver awaiting verification', async () => {
    await page.goto(`${t.baseUrl}/console/drivers/${applicant.driverId}`);
    await main().getByRole('heading', { level: 1, name: 'Solicitante Pendiente' }).waitFor();
    await main().getByRole('button', { name: es.drivers.reject }).waitFor();
    expect(await main().getByRole('button', { name: es.drivers.suspend }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
