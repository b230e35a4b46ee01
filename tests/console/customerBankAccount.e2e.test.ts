import { beforeAll, expect, it } from 'vitest';
import { es } from '../../console/src/i18n/es.js';
import { signInClient } from '../support/actors.js';
import { consoleSuite, seriousViolations } from './consoleBrowser.js';

/**
 * A customer's bank account on the customer's screen (issue 31): the API's refusal reads in Spanish on
 * its field, a valid account is saved and shown with the bank by name, and removed after confirming.
 */
const b = es.bankAccount;

consoleSuite("a customer's bank account", {}, (c) => {
  let customerId: number;

  beforeAll(async () => {
    customerId = (await signInClient(c.t, undefined, 'Rosa Cuentas')).user.id as number;
  }, 120_000);

  it('saves an account (a bad cédula refused in Spanish on its field first), then removes it after confirming', async () => {
    await c.open(`/customers/${customerId}`);
    const section = c.main().getByRole('region', { name: b.title });
    await section.getByText(b.none).waitFor();
    const form = section.getByRole('form', { name: b.save });
    await form.getByLabel(b.idNumber).fill('X12');
    await form.getByLabel(b.phone).fill('0414-1234567');
    await form.getByLabel(b.bank).selectOption('0134');
    await form.getByRole('button', { name: b.save }).click();
    await expect.poll(() => form.getByLabel(b.idNumber).getAttribute('aria-invalid')).toBe('true');
    // The refusal sits on the cédula, in Spanish, with the rule's own sentence.
    await expect
      .poll(() => form.locator('.field-error').first().textContent())
      .toMatch(/^Debe ser una cédula o RIF: V, E, J, G o P \(opcional\) y de 6 a 10 dígitos\./);
    expect(await seriousViolations(c.page)).toEqual([]);

    await form.getByLabel(b.idNumber).fill('V-12.345.678');
    await form.getByRole('button', { name: b.save }).click();
    await section.getByText(b.saved).waitFor();
    await section.locator('dl dd').getByText('0134 · Banesco').waitFor();
    const saved = await c.t.request('GET', `/api/v1/admin/customers/${customerId}/bank-account`, {
      token: c.root.token,
    });
    expect(saved.body.account).toMatchObject({ id_number: 'V12345678', phone: '+584141234567', bank_code: '0134' });

    await section.getByRole('button', { name: b.remove }).click();
    await section.getByRole('alertdialog', { name: b.remove }).getByRole('button', { name: es.common.confirm }).click();
    await section.getByText(b.none).waitFor();
    const gone = await c.t.request('GET', `/api/v1/admin/customers/${customerId}/bank-account`, {
      token: c.root.token,
    });
    expect(gone.body.account).toBeNull();
    expect(c.pageErrors).toEqual([]);
  });
});
