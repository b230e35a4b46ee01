import { beforeAll, expect, it } from 'vitest';
import { es } from '../../console/src/i18n/es.js';
import { signInDriver, type SignedInDriver } from '../support/actors.js';
import { consoleSuite, seriousViolations } from './consoleBrowser.js';

/**
 * The home page says what needs attention now, and a report's driver filter is picked by name as the
 * operator types (issue 31).
 */
consoleSuite('home and pickers', {}, (c) => {
  let driver: SignedInDriver;

  beforeAll(async () => {
    driver = await signInDriver(c.t, { name: 'Íngrid Salcedo' });
    // A driver whose documents are in: awaiting the KYC review.
    const applicant = await signInDriver(c.t, { name: 'Solicitante', approved: false });
    for (const [method, path, body] of [
      ['PUT', '/driver/profile', { plate: 'XY12345', capacityLiters: 8000, cityId: 1 }],
      ['POST', '/driver/documents', { type: 'ID_FRONT', expiresAt: '2099-12-31' }],
      ['POST', '/driver/documents', { type: 'LICENSE', expiresAt: '2099-12-31' }],
    ] as const)
      expect((await c.t.request(method, `/api/v1${path}`, { token: applicant.token, body })).status).toBeLessThan(300);
  }, 120_000);

  it('counts what waits: payments to review, receipts in the tray, support conversations, drivers awaiting KYC', async () => {
    await c.open('/');
    const kyc = c.main().locator('[data-attention="kyc"] .count');
    await expect.poll(() => kyc.textContent()).toBe('1');
    for (const id of ['payments', 'tray', 'support'])
      await expect.poll(() => c.main().locator(`[data-attention="${id}"] .count`).textContent()).toBe('0');
    expect(await seriousViolations(c.page)).toEqual([]);
    await c
      .main()
      .getByRole('link', { name: new RegExp(es.home.kyc(true)) })
      .click();
    await expect.poll(() => c.main().locator('table tbody tr').count()).toBe(1);
    await c.main().getByRole('cell', { name: 'Solicitante' }).waitFor();
    // The menu's Conductores is every driver again: the home page's KYC filter does not stay behind it.
    await c.page.getByRole('navigation', { name: es.app.menu }).getByRole('link', { name: es.nav.drivers }).click();
    await expect.poll(() => c.main().locator('table tbody tr').count()).toBeGreaterThan(1);
    expect(await c.main().getByLabel(es.drivers.kyc).inputValue()).toBe('');
  });

  it("filters a report by a driver picked by name, and sends the driver's id", async () => {
    await c.open('/reports/orders');
    const picker = c.main().getByLabel(es.fields.driver_id);
    await picker.fill('ingrid');
    const listId = (await picker.getAttribute('list'))!;
    const option = c.main().locator(`datalist[id="${listId}"] option`).first();
    await expect.poll(() => option.getAttribute('value')).toContain(`(#${driver.driverId})`);
    await picker.fill((await option.getAttribute('value'))!);
    await expect
      .poll(() => c.main().locator('input[type="hidden"][name="driver_id"]').inputValue())
      .toBe(String(driver.driverId));
    await c.main().getByRole('button', { name: es.common.filter }).click();
    await expect.poll(() => c.page.url()).toMatch(new RegExp(`driver_id=${driver.driverId}\\b`));
    expect(await seriousViolations(c.page)).toEqual([]);
    expect(c.pageErrors).toEqual([]);
  });

  it('records an official exchange rate after confirming how it will read', async () => {
    await c.open('/exchange-rates');
    const form = c.main().getByRole('form', { name: es.rates.new });
    await form.getByLabel(es.rates.rateInput).fill('40.25');
    await form.getByRole('button', { name: es.rates.new }).click();
    const confirm = form.getByRole('alertdialog', { name: es.rates.confirmTitle });
    await confirm.getByText(es.rates.confirm('Bs. 40,25')).waitFor();
    expect(await seriousViolations(c.page)).toEqual([]);
    await confirm.getByRole('button', { name: es.common.confirm }).click();
    await form.getByText(es.rates.saved).waitFor();
    await c.main().getByRole('cell', { name: 'Bs. 40,25' }).first().waitFor();
    const rates = await c.t.request('GET', '/api/v1/admin/exchange-rates?limit=1', { token: c.root.token });
    expect(rates.body.items[0].rate).toBe(40.25);
    expect(c.pageErrors).toEqual([]);
  });
});
