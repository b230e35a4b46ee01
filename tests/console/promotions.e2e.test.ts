import { expect, it } from 'vitest';
import { es } from '../../console/src/i18n/es.js';
import { signInClient } from '../support/actors.js';
import { arrive, call, confirmedOrder } from '../support/orderFlows.js';
import { consoleSuite, seriousViolations } from './consoleBrowser.js';

/**
 * The promotion campaign screens against the real service (issue 31): a campaign created from the form
 * after the API's refusals land on their fields in Spanish and the amount is confirmed, listed with its
 * money and calendar dates as operators read them, switched off and deleted after a confirmation, and a
 * granted campaign's recipients listed with its granted terms frozen on screen.
 */
const p = es.promotions;

consoleSuite('promotions', { env: { OFFICIAL_RATE_VES: '36.5' } }, (c) => {
  const promotionsNamed = async (name: string) =>
    (
      (await c.t.request('GET', '/api/v1/admin/promotions', { token: c.root.token })).body.items as {
        id: number;
        name: string;
        [k: string]: unknown;
      }[]
    ).filter((x) => x.name === name);

  it('creates a campaign: refusals on their fields in Spanish, then the amount confirmed', async () => {
    await c.open('/promotions/new');
    const form = c.main().getByRole('form', { name: p.new });
    await form.getByLabel(p.name).fill('Diciembre solidario');
    await form.getByLabel(p.scopeLabel).selectOption('ORDERS');
    await form.getByLabel(p.milestone).fill('3');
    await form.locator('datalist option[value="Caracas (#1)"]').waitFor({ state: 'attached' });
    await form.getByLabel(p.city).fill('Caracas (#1)');
    await form.getByLabel(p.startsAt).fill('2026-12-01');
    await form.getByLabel(p.endsAt).fill('2026-11-30');
    // No amount: refused under the amount, in Spanish, before anything is asked of the service.
    await form.getByRole('button', { name: es.common.save }).click();
    const amount = form.getByLabel(p.amount);
    await expect.poll(() => amount.getAttribute('aria-invalid')).toBe('true');
    await form.getByText(es.amount.empty).waitFor();
    expect(await promotionsNamed('Diciembre solidario')).toEqual([]);
    // The window ends before it starts: refused on the end date.
    await amount.fill('5.7');
    await form.getByRole('button', { name: es.common.save }).click();
    await form.getByRole('button', { name: es.common.confirm }).click();
    await form.getByText('Debe ser posterior a la fecha inicial.').waitFor();
    expect(await seriousViolations(c.page)).toEqual([]);
    await form.getByLabel(p.endsAt).fill('2026-12-31');
    // A city the service does not know (typed as an id): refused on the city picker itself.
    const city = form.getByLabel(p.city);
    await city.fill('#99999');
    await form.getByRole('button', { name: es.common.save }).click();
    await form.getByRole('button', { name: es.common.confirm }).click();
    await expect.poll(() => city.getAttribute('aria-invalid')).toBe('true');
    await form.getByText('Ciudad desconocida.').waitFor();
    expect(await promotionsNamed('Diciembre solidario')).toEqual([]);
    await city.fill('Caracas (#1)');
    await form.getByRole('button', { name: es.common.save }).click();
    const confirm = form.getByRole('alertdialog', { name: p.new });
    await confirm.getByText(p.createConfirm('US$ 5,70', 'CLIENT', 3)).waitFor();
    expect(await seriousViolations(c.page)).toEqual([]);
    await confirm.getByRole('button', { name: es.common.confirm }).click();
    await c.main().getByRole('heading', { level: 1, name: 'Diciembre solidario' }).waitFor();
    const [created] = await promotionsNamed('Diciembre solidario');
    expect(created).toMatchObject({
      audience: 'CLIENT',
      credit_scope: 'ORDERS',
      milestone_orders: 3,
      amount_usd: 5.7,
      city_id: 1,
      starts_at: '2026-12-01T00:00:00.000Z',
      ends_at: '2026-12-31T00:00:00.000Z',
      active: true,
    });
  });

  it('lists campaigns with Spanish labels, money in US$ and calendar dates without a time', async () => {
    await c.open('/promotions');
    const row = c.main().locator('table tbody tr', { hasText: 'Diciembre solidario' });
    await row.waitFor();
    for (const cell of ['US$ 5,70', p.audience.CLIENT, p.scope.ORDERS, 'Caracas', '01/12/2026', '31/12/2026'])
      await row.getByRole('cell', { name: cell, exact: true }).waitFor();
    await c.main().getByLabel(p.audienceLabel).selectOption('DRIVER');
    await c.main().getByRole('button', { name: es.common.filter }).click();
    await expect.poll(() => c.main().locator('table tbody tr', { hasText: 'Diciembre solidario' }).count()).toBe(0);
    expect(await seriousViolations(c.page)).toEqual([]);
  });

  it('switches a campaign off and deletes it, each after a confirmation', async () => {
    const [campaign] = await promotionsNamed('Diciembre solidario');
    await c.open(`/promotions/${campaign.id}`);
    await c.main().getByRole('button', { name: p.deactivate }).click();
    const off = c.main().getByRole('alertdialog', { name: p.deactivate });
    await off.getByText(p.deactivateConfirm('Diciembre solidario')).waitFor();
    expect((await promotionsNamed('Diciembre solidario'))[0].active).toBe(true);
    await off.getByRole('button', { name: es.common.confirm }).click();
    await c.main().getByText(p.deactivated).waitFor();
    expect((await promotionsNamed('Diciembre solidario'))[0].active).toBe(false);
    await c.main().getByRole('button', { name: p.remove }).click();
    await c
      .main()
      .getByRole('alertdialog', { name: p.remove })
      .getByRole('button', { name: es.common.confirm })
      .click();
    await c.main().getByRole('heading', { level: 1, name: p.title }).waitFor();
    expect(await promotionsNamed('Diciembre solidario')).toEqual([]);
  });

  it('lists a granted campaign’s recipients and keeps its granted terms frozen on screen', async () => {
    const created = await c.t.request('POST', '/api/v1/admin/promotions', {
      token: c.root.token,
      body: {
        name: 'Primera entrega',
        audience: 'CLIENT',
        credit_scope: 'ORDERS',
        milestone_orders: 1,
        amount_usd: 2.5,
      },
    });
    expect(created.status).toBe(201);
    const id: number = created.body.promotion.id;
    const client = await signInClient(c.t, undefined, 'Clienta Premiada');
    const flow = await confirmedOrder(c.t, { client, body: { litersRequested: 1000 } });
    await arrive(c.t, flow);
    const delivered = await call(c.t).post(`/orders/${flow.orderId}/deliver`, flow.driver.token, {
      actualLiters: 1000,
      deliveryPin: flow.pin,
    });
    expect(delivered.status).toBe(200);
    await expect
      .poll(async () => (await promotionsNamed('Primera entrega'))[0].grants_count, { timeout: 30_000 })
      .toBe(1);

    await c.open(`/promotions/${id}`);
    const grants = c.main().getByRole('region', { name: p.grants });
    const row = grants.locator('tbody tr', { hasText: 'Clienta Premiada' });
    await row.waitFor();
    await row.getByRole('cell', { name: 'US$ 2,50', exact: true }).waitFor();
    await row.getByRole('cell', { name: `#${flow.orderId}`, exact: true }).waitFor();
    const form = c.main().getByRole('form', { name: p.edit });
    await form.getByText(p.frozen).waitFor();
    expect(await form.getByLabel(p.amount).isDisabled()).toBe(true);
    expect(await c.main().getByRole('button', { name: p.remove }).count()).toBe(0);
    expect(await seriousViolations(c.page)).toEqual([]);
    // What is not frozen still changes, and only it is sent.
    await form.getByLabel(p.name).fill('Primera entrega (Caracas)');
    await form.getByRole('button', { name: es.common.save }).click();
    await form.getByRole('alertdialog', { name: p.edit }).getByRole('button', { name: es.common.confirm }).click();
    await form.getByText(p.saved).waitFor();
    expect((await promotionsNamed('Primera entrega (Caracas)'))[0]).toMatchObject({ amount_usd: 2.5, grants_count: 1 });
    expect(c.pageErrors).toEqual([]);
  });
});
