import { expect, it } from 'vitest';
import { es } from '../../console/src/i18n/es.js';
import { consoleSuite, seriousViolations } from './consoleBrowser.js';

/**
 * Payment forms and methods (issue 31): a super admin creates a manual form with all the API keeps of it
 * (what the customer sees to pay, each datum's required flag, hint and input type, the icon), the API's
 * refusals reading in Spanish on the inputs they name (a row's own input included); edits it keeping
 * each datum's number; and switches a form and a method off after confirming. The service holds each
 * change.
 */
const p = es.paymentForms;

interface StoredForm {
  id: number;
  internal_name: string;
  [k: string]: unknown;
}

consoleSuite('payment forms and methods', {}, (c) => {
  const formNamed = async (internalName: string) =>
    (
      (await c.t.request('GET', '/api/v1/admin/payment-forms?limit=100', { token: c.root.token })).body
        .items as StoredForm[]
    ).find((f) => f.internal_name === internalName);

  it('creates a form with its display, required flags, hints, input types and icon; refusals land on their inputs', async () => {
    await c.open('/payment-forms');
    const form = c.main().getByRole('form', { name: p.new });
    await form.getByLabel(p.name, { exact: true }).fill('Pago móvil Banesco');
    await form.getByLabel(p.internalName).fill('Pago Movil');
    await form.getByLabel(p.category).selectOption('pago_movil');
    await form.getByLabel(p.currency).selectOption('VES');
    await form.getByLabel(p.icon).fill('pago-movil');

    await form.getByRole('button', { name: p.addDisplay }).click();
    const shown = form.getByRole('group', { name: p.displayRow(1) });
    await shown.getByLabel(p.displayTypeLabel).selectOption('link');
    await shown.getByLabel(p.displayLabel).fill('Cómo pagar');
    await shown.getByLabel(p.displayContent).fill('http://banesco.example/pagar');
    await form.getByRole('button', { name: p.addDisplay }).click();
    const phone = form.getByRole('group', { name: p.displayRow(2) });
    await phone.getByLabel(p.displayTypeLabel).selectOption('copy');
    await phone.getByLabel(p.displayLabel).fill('Teléfono');
    await phone.getByLabel(p.displayContent).fill('04141234567');

    const datum = (n: number) => form.getByRole('group', { name: p.fieldRow(n) });
    await datum(1).getByLabel(p.fieldLabel).fill('Teléfono de origen');
    await datum(1).getByLabel(p.inputTypeLabel).selectOption('phone');
    await datum(1).getByLabel(p.fieldHint).fill('Ej. 04141234567');
    await form.getByRole('button', { name: p.addField }).click();
    await datum(2).getByLabel(p.fieldLabel).fill('Referencia');
    await datum(2).getByLabel(p.inputTypeLabel).selectOption('reference');
    await form.getByRole('button', { name: p.addField }).click();
    await datum(3).getByLabel(p.fieldLabel).fill('Nota');
    await datum(3).getByLabel(p.fieldRequired).uncheck();

    await form.getByRole('button', { name: p.create }).click();
    // Both refusals on their own inputs, in Spanish: the internal name and the link's address.
    const internal = form.getByLabel(p.internalName);
    await expect.poll(() => internal.getAttribute('aria-invalid')).toBe('true');
    await form.getByText(/Use de 2 a 60 minúsculas/).waitFor();
    const link = shown.getByLabel(p.displayContent);
    await expect.poll(() => link.getAttribute('aria-invalid')).toBe('true');
    await shown.getByText(/Debe ser una dirección https:\/\//).waitFor();
    expect(await phone.getByLabel(p.displayContent).getAttribute('aria-invalid')).toBeNull();
    expect(await seriousViolations(c.page)).toEqual([]);
    expect(await formNamed('pago_movil_banesco')).toBeUndefined();

    await internal.fill('pago_movil_banesco');
    await link.fill('https://banesco.example/pagar');
    await form.getByRole('button', { name: p.create }).click();
    await form.getByText(p.saved).waitFor();
    const table = c.main().getByRole('region', { name: p.forms });
    await table.getByRole('cell', { name: 'Pago móvil Banesco', exact: true }).waitFor();
    await table.getByRole('cell', { name: `Teléfono de origen, Referencia, Nota (${p.fieldOptional})` }).waitFor();
    expect(await formNamed('pago_movil_banesco')).toMatchObject({
      name: 'Pago móvil Banesco',
      category: 'pago_movil',
      currency: 'VES',
      icon: 'pago-movil',
      active: true,
      display: [
        { index: 0, type: 'link', label: 'Cómo pagar', content: 'https://banesco.example/pagar' },
        { index: 1, type: 'copy', label: 'Teléfono', content: '04141234567' },
      ],
      fields: [
        { index: 0, label: 'Teléfono de origen', required: true, hint: 'Ej. 04141234567', input_type: 'phone' },
        { index: 1, label: 'Referencia', required: true, hint: null, input_type: 'reference' },
        { index: 2, label: 'Nota', required: false, hint: null, input_type: 'text' },
      ],
    });
    expect(c.pageErrors).toEqual([]);
  });

  it("edits a form: a datum's refused hint lands on it; a removed datum leaves the others' numbers; then switches it off", async () => {
    await c.open('/payment-forms');
    const table = c.main().getByRole('region', { name: p.forms });
    await table.getByRole('button', { name: `${p.edit} Pago móvil Banesco` }).click();
    const edit = c.main().getByRole('form', { name: p.editTitle('Pago móvil Banesco') });
    await edit.getByLabel(p.name, { exact: true }).fill('Pago móvil Banesco Empresas');
    await edit.getByRole('button', { name: p.removeField(2) }).click();
    await edit.getByRole('button', { name: p.removeDisplay(1) }).click();
    const nota = edit.getByRole('group', { name: p.fieldRow(2) });
    expect(await nota.getByLabel(p.fieldLabel).inputValue()).toBe('Nota');
    await nota.getByLabel(p.fieldHint).fill('x'.repeat(256));
    await nota.getByLabel(p.fieldRequired).check();
    await edit.getByRole('button', { name: es.common.save }).click();
    const hint = nota.getByLabel(p.fieldHint);
    await expect.poll(() => hint.getAttribute('aria-invalid')).toBe('true');
    await nota.getByText('Debe tener como máximo 255 caracteres.').waitFor();
    expect(await seriousViolations(c.page)).toEqual([]);

    await hint.fill('Opcional: a nombre de quién');
    await edit.getByRole('button', { name: es.common.save }).click();
    await table.getByRole('cell', { name: 'Pago móvil Banesco Empresas', exact: true }).waitFor();
    const stored = await formNamed('pago_movil_banesco');
    expect(stored).toMatchObject({
      name: 'Pago móvil Banesco Empresas',
      display: [{ index: 1, type: 'copy', label: 'Teléfono' }],
      fields: [
        { index: 0, label: 'Teléfono de origen', input_type: 'phone' },
        { index: 2, label: 'Nota', required: true, hint: 'Opcional: a nombre de quién', input_type: 'text' },
      ],
    });

    await table.getByRole('button', { name: `${p.deactivate} Pago móvil Banesco Empresas` }).click();
    const confirm = table.getByRole('alertdialog', { name: p.confirmTitle });
    await confirm.getByText(p.confirmToggle('Pago móvil Banesco Empresas', false)).waitFor();
    await confirm.getByRole('button', { name: es.common.confirm }).click();
    await table.getByRole('button', { name: `${p.activate} Pago móvil Banesco Empresas` }).waitFor();
    expect((await formNamed('pago_movil_banesco'))?.active).toBe(false);
    expect(c.pageErrors).toEqual([]);
  });

  it('switches a payment method off after confirming, with the kind in Spanish', async () => {
    await c.open('/payment-forms');
    const before = await c.t.request('GET', '/api/v1/payment-methods', { token: c.root.token });
    const method = (before.body.methods as { code: string; name: string; active: boolean; kind: string }[]).find(
      (m) => m.active,
    )!;
    const table = c.main().getByRole('region', { name: p.methods });
    await table.getByRole('cell', { name: p.kinds[method.kind], exact: true }).first().waitFor();
    await table.getByRole('button', { name: `${p.deactivate} ${method.name}`, exact: true }).click();
    await table
      .getByRole('alertdialog', { name: p.confirmTitle })
      .getByRole('button', { name: es.common.confirm })
      .click();
    await table.getByRole('button', { name: `${p.activate} ${method.name}`, exact: true }).waitFor();
    const after = await c.t.request('GET', '/api/v1/payment-methods', { token: c.root.token });
    expect(after.body.methods.find((m: { code: string }) => m.code === method.code).active).toBe(false);
    expect(await seriousViolations(c.page)).toEqual([]);
    expect(c.pageErrors).toEqual([]);
  });
});
