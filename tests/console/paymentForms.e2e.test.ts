import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { es } from '../../console/src/i18n/es.js';
import { signInAdmin, type SignedInAdmin } from '../support/actors.js';
import { startTestService, type TestService } from '../support/testService.js';
import {
  chromiumMissing,
  ensureConsoleBuilt,
  launchChromium,
  seriousViolations,
  signedInPage,
} from './consoleBrowser.js';

/**
 * Payment forms and methods (issue 31): a super admin creates a manual form (the API's refusal reads
 * in Spanish on its field), edits it, and switches a method off after confirming; the service holds
 * each change.
 */
const missing = chromiumMissing();
if (missing) console.log(`console payment-forms browser tests skipped: ${missing}`);

const p = es.paymentForms;

describe.skipIf(missing !== null)('payment forms and methods (Chromium)', () => {
  let t: TestService;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[];
  let root: SignedInAdmin;
  const main = () => page.locator('main');

  beforeAll(async () => {
    ensureConsoleBuilt();
    t = await startTestService();
    root = await signInAdmin(t);
    browser = await launchChromium();
    ({ page, pageErrors } = await signedInPage(browser, t.baseUrl, root));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('creates a form, showing the API field error in Spanish on its field first, then edits it', async () => {
    await page.goto(`${t.baseUrl}/console/payment-forms`);
    const form = main().getByRole('form', { name: p.new });
    await form.getByLabel(p.name, { exact: true }).fill('Pago móvil Banesco');
    await form.getByLabel(p.internalName).fill('Pago Movil');
    await form.getByLabel(p.category).selectOption('pago_movil');
    await form.getByLabel(p.fieldLabels).fill('Teléfono\nBanco\nReferencia');
    await form.getByRole('button', { name: p.create }).click();
    const internal = form.getByLabel(p.internalName);
    await expect.poll(() => internal.getAttribute('aria-invalid')).toBe('true');
    await form.getByText(/Use de 2 a 60 minúsculas/).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await internal.fill('pago_movil_banesco');
    await form.getByRole('button', { name: p.create }).click();
    await form.getByText(p.saved).waitFor();
    const table = main().getByRole('region', { name: p.forms });
    await table.getByRole('cell', { name: 'Pago móvil Banesco', exact: true }).waitFor();
    await table.getByRole('cell', { name: p.categories.pago_movil, exact: true }).first().waitFor();
    const listed = await t.request('GET', '/api/v1/admin/payment-forms', { token: root.token });
    const created = listed.body.items.find((f: { internal_name: string }) => f.internal_name === 'pago_movil_banesco');
    expect(created).toMatchObject({
      name: 'Pago móvil Banesco',
      category: 'pago_movil',
      currency: 'VES',
      active: true,
    });
    expect(created.fields.map((f: { label: string }) => f.label)).toEqual(['Teléfono', 'Banco', 'Referencia']);

    await table.getByRole('button', { name: `${p.edit} Pago móvil Banesco` }).click();
    const edit = main().getByRole('form', { name: p.editTitle('Pago móvil Banesco') });
    await edit.getByLabel(p.name, { exact: true }).fill('Pago móvil Banesco Empresas');
    await edit.getByRole('button', { name: es.common.save }).click();
    await table.getByRole('cell', { name: 'Pago móvil Banesco Empresas', exact: true }).waitFor();

    await table.getByRole('button', { name: `${p.deactivate} Pago móvil Banesco Empresas` }).click();
    const confirm = table.getByRole('alertdialog', { name: p.confirmTitle });
    await confirm.getByText(p.confirmToggle('Pago móvil Banesco Empresas', false)).waitFor();
    await confirm.getByRole('button', { name: es.common.confirm }).click();
    await table.getByRole('button', { name: `${p.activate} Pago móvil Banesco Empresas` }).waitFor();
    const after = await t.request('GET', '/api/v1/admin/payment-forms', { token: root.token });
    expect(after.body.items.find((f: { id: number }) => f.id === created.id)).toMatchObject({
      name: 'Pago móvil Banesco Empresas',
      active: false,
    });
    expect(pageErrors).toEqual([]);
  });

  it('switches a payment method off after confirming, with the kind in Spanish', async () => {
    await page.goto(`${t.baseUrl}/console/payment-forms`);
    const before = await t.request('GET', '/api/v1/payment-methods', { token: root.token });
    const method = (before.body.methods as { code: string; name: string; active: boolean; kind: string }[]).find(
      (m) => m.active,
    )!;
    const table = main().getByRole('region', { name: p.methods });
    await table.getByRole('cell', { name: p.kinds[method.kind], exact: true }).first().waitFor();
    await table.getByRole('button', { name: `${p.deactivate} ${method.name}`, exact: true }).click();
    await table
      .getByRole('alertdialog', { name: p.confirmTitle })
      .getByRole('button', { name: es.common.confirm })
      .click();
    await table.getByRole('button', { name: `${p.activate} ${method.name}`, exact: true }).waitFor();
    const after = await t.request('GET', '/api/v1/payment-methods', { token: root.token });
    expect(after.body.methods.find((m: { code: string }) => m.code === method.code).active).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
