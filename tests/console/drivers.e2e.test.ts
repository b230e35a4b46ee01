import { beforeAll, expect, it } from 'vitest';
import { es } from '../../console/src/i18n/es.js';
import { signInDriver, type SignedInDriver } from '../support/actors.js';
import { consoleSuite, seriousViolations } from './consoleBrowser.js';

/**
 * A driver found by name and handled from the console (issue 31): suspended and reinstated, the balance
 * adjusted after a confirmation, KYC rejection offered only while the driver awaits verification, and a
 * document's expiry date shown as the date it is in Caracas' time zone.
 */
consoleSuite('drivers', {}, (c) => {
  let driver: SignedInDriver;
  let applicant: SignedInDriver;
  const statusOf = async (id: number) =>
    (await c.t.request('GET', `/api/v1/admin/drivers/${id}`, { token: c.root.token })).body.driver.status;

  beforeAll(async () => {
    driver = await signInDriver(c.t, { name: 'Ramón Gutiérrez' });
    await signInDriver(c.t, { name: 'Otro Conductor' });
    applicant = await signInDriver(c.t, { name: 'Solicitante Pendiente', approved: false });
  }, 120_000);

  it('finds a driver by name as typed (no accents), then suspends and reinstates them', async () => {
    await c.open('/drivers');
    await c.main().locator('table tbody tr').first().waitFor();
    await c.main().getByLabel(es.drivers.search).fill('ramon gutierrez');
    await expect.poll(() => c.main().locator('table tbody tr').count()).toBe(1);
    await c.main().getByRole('link', { name: 'Ramón Gutiérrez' }).click();
    await c.main().getByRole('heading', { level: 1, name: 'Ramón Gutiérrez' }).waitFor();
    expect(await seriousViolations(c.page)).toEqual([]);
    // An approved, active driver: no KYC decision on offer, suspension is.
    expect(await c.main().getByRole('button', { name: es.drivers.reject }).count()).toBe(0);
    expect(await c.main().getByRole('button', { name: es.drivers.approve }).count()).toBe(0);
    // The licence expires 2099-12-31: that date, not the day before at 8 p.m.
    await c.main().getByText(`${es.drivers.expires} 31/12/2099`).first().waitFor();
    await c.main().getByRole('button', { name: es.drivers.suspend }).click();
    const form = c.main().getByRole('form', { name: es.drivers.suspend });
    await form.getByLabel(es.common.reason).fill('Documentos en revisión por reclamo');
    await form.getByRole('button', { name: es.common.confirm }).click();
    await c.main().getByText(es.drivers.suspended).waitFor();
    expect(await statusOf(driver.driverId)).toBe('SUSPENDED');
    c.page.once('dialog', (d) => void d.accept());
    await c.main().getByRole('button', { name: es.drivers.reinstate }).click();
    await c.main().getByText(es.drivers.reinstated).waitFor();
    expect(await statusOf(driver.driverId)).toBe('ACTIVE');
  });

  it('adjusts the balance only after confirming the signed amount, once', async () => {
    await c.open(`/drivers/${driver.driverId}`);
    const form = c.main().getByRole('form', { name: es.drivers.adjust });
    await form.getByLabel(es.drivers.amount).fill('5.7');
    await form.getByLabel(es.common.reason).fill('corto');
    await form.getByRole('button', { name: es.drivers.adjust }).click();
    await form.getByText(es.validation.reasonLength).waitFor();
    await form.getByLabel(es.common.reason).fill('Devolución de efectivo entregado en oficina');
    await form.getByRole('button', { name: es.drivers.adjust }).click();
    const confirm = form.getByRole('alertdialog', { name: es.drivers.adjustConfirmTitle });
    await confirm.getByText(es.drivers.adjustConfirm('+US$ 5,70')).waitFor();
    expect(await seriousViolations(c.page)).toEqual([]);
    await confirm.getByRole('button', { name: es.common.confirm }).click();
    await form.getByText(es.drivers.adjusted).waitFor();
    await c.main().getByRole('cell', { name: '+US$ 5,70' }).waitFor();
    const wallet = await c.t.request('GET', `/api/v1/admin/drivers/${driver.driverId}/wallet`, { token: c.root.token });
    expect(wallet.body.wallet.balanceUSD).toBe(5.7);
  });

  it('offers the KYC rejection to a driver awaiting verification', async () => {
    await c.open(`/drivers/${applicant.driverId}`);
    await c.main().getByRole('heading', { level: 1, name: 'Solicitante Pendiente' }).waitFor();
    await c.main().getByRole('button', { name: es.drivers.reject }).waitFor();
    expect(await c.main().getByRole('button', { name: es.drivers.suspend }).count()).toBe(0);
    expect(c.pageErrors).toEqual([]);
  });
});
