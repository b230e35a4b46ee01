import { formatInTimeZone } from 'date-fns-tz';
import { beforeAll, expect, it } from 'vitest';
import { fmt } from '../../console/src/i18n/index.js';
import { es } from '../../console/src/i18n/es.js';
import { must, settlementSteps } from '../api/settlementFlows.js';
import { signInAdmin, type SignedInDriver } from '../support/actors.js';
import { consoleSuite, seriousViolations, signedInPage } from './consoleBrowser.js';

/**
 * The auditor's replay (issue 31): at every step the wallet screen shows what the API's as_of answers
 * for that step's instant, reservations of the driver's receipts included; an exact instant typed
 * shows the API's answer for that instant; a receipt is found by its number.
 */
type Step = { type: string; recorded_at: string; reservation: string | null; data: Record<string, unknown> };
const FIELDS = ['balanceUSD', 'pendingPayoutUSD', 'withdrawableUSD', 'cashDebtUSD'] as const;

consoleSuite('replay', { env: { OFFICIAL_RATE_VES: '36.5' } }, (c) => {
  let driver: SignedInDriver;
  let receipt: { id: string; receipt_number: string };

  const walletAsOf = async (asOf: string) =>
    must(
      'wallet as of',
      await c.t.request('GET', `/api/v1/admin/drivers/${driver.driverId}/wallet?as_of=${encodeURIComponent(asOf)}`, {
        token: c.root.token,
      }),
    ).wallet as Record<(typeof FIELDS)[number], number>;
  const shown = () =>
    Promise.all(FIELDS.map((f) => c.main().locator(`dd[data-field="${f}"]`).textContent())).then((v) =>
      Object.fromEntries(FIELDS.map((f, i) => [f, v[i]])),
    );
  const expected = (w: Record<(typeof FIELDS)[number], number>) =>
    Object.fromEntries(FIELDS.map((f) => [f, fmt.usd(w[f])]));

  beforeAll(async () => {
    const s = settlementSteps(c.t);
    // Earned, reserved by a cutoff, paid by the payout (reservation released, PAYOUT_SENT), then earned again.
    driver = await s.driverWithBalance('3', 44.55, 'Conductora Auditada');
    await s.credit(driver.driverId, 83.19);
    receipt = s.byDriver((await s.run('cutoff')).receipts, driver);
    expect(s.byDriver((await s.run('payout')).receipts, driver).status).toBe('PAID');
    await s.credit(driver.driverId, 5.7);
  }, 120_000);

  it("shows, at every step of the wallet's timeline, what the API's as_of answers for that step", async () => {
    const history = must(
      'wallet history',
      await c.t.request('GET', `/api/v1/admin/drivers/${driver.driverId}/wallet/history`, { token: c.root.token }),
    ).events as Step[];
    // The receipt's reservation, the period's close and the release are steps of their own, between the movements.
    expect(history.map((e) => e.reservation ?? e.type)).toEqual([
      'WalletOpened',
      'PayoutAccountSet',
      'LedgerEntryRecorded',
      'LedgerEntryRecorded',
      'RESERVED',
      'WalletPeriodClosed',
      'RELEASED',
      'LedgerEntryRecorded',
      'LedgerEntryRecorded',
    ]);
    await c.open(`/replay/wallet/${driver.driverId}`);
    const steps = c.main().locator('.timeline li');
    // The history and the wallet load together; on a busy machine that is more than a second.
    await expect.poll(() => steps.count(), { timeout: 15_000 }).toBe(history.length);
    expect(await seriousViolations(c.page)).toEqual([]);
    const seen: Record<string, string | null>[] = [];
    for (const [i, step] of history.entries()) {
      await steps.nth(i).getByRole('button').click();
      const want = expected(await walletAsOf(step.recorded_at));
      await expect.poll(shown, { message: `step ${i + 1} ${step.reservation ?? step.type}` }).toEqual(want);
      seen.push(want);
    }
    // What the auditor reads: right after the earnings, 127,74 available; the cutoff reserves it (pending,
    // not withdrawable) and the close moves nothing; after the payout nothing is both paid and available; the
    // last credit shows at once.
    expect(seen[3]).toMatchObject({ balanceUSD: 'US$ 127,74', withdrawableUSD: 'US$ 127,74' });
    expect(seen[4]).toMatchObject({ pendingPayoutUSD: 'US$ 127,74', withdrawableUSD: 'US$ 0,00' });
    expect(seen[5]).toEqual(seen[4]);
    expect(seen[7]).toMatchObject({
      balanceUSD: 'US$ 0,00',
      pendingPayoutUSD: 'US$ 0,00',
      withdrawableUSD: 'US$ 0,00',
    });
    expect(seen[8]).toMatchObject({ balanceUSD: 'US$ 5,70', withdrawableUSD: 'US$ 5,70' });
    await expect.poll(() => steps.nth(4).textContent()).toContain(receipt.receipt_number);
    await expect.poll(() => steps.nth(8).textContent()).toContain(`${es.enums.ledgerType.MANUAL_ADJUSTMENT} +US$ 5,70`);
  });

  it('shows the state as of an exact instant typed, and finds a receipt by its number', async () => {
    const history = must(
      'wallet history',
      await c.t.request('GET', `/api/v1/admin/drivers/${driver.driverId}/wallet/history`, { token: c.root.token }),
    ).events as Step[];
    // One millisecond before the payout's PAYOUT_SENT: reserved no more, not yet debited.
    const instant = new Date(new Date(history[6].recorded_at).getTime() - 1).toISOString();
    await c.open(`/replay/wallet/${driver.driverId}`);
    await c.main().locator('.timeline li').first().waitFor();
    await c
      .main()
      .getByLabel(es.replay.exactInstant)
      .fill(formatInTimeZone(instant, 'America/Caracas', "yyyy-MM-dd'T'HH:mm:ss.SSS"));
    await c.main().getByRole('button', { name: es.common.go }).click();
    await expect.poll(shown).toEqual(expected(await walletAsOf(instant)));

    // The receipt by its number, as of the instant of its issue: GENERATED.
    await c.open(`/replay/receipt/${receipt.receipt_number}`);
    const status = c.main().locator('.kv dd .badge').first();
    await expect.poll(() => status.getAttribute('data-status')).toBe('PAID');
    await c.main().getByText(receipt.receipt_number).first().waitFor();
    const issued = history[4].recorded_at;
    await c
      .main()
      .getByLabel(es.replay.exactInstant)
      .fill(formatInTimeZone(issued, 'America/Caracas', "yyyy-MM-dd'T'HH:mm:ss.SSS"));
    await c.main().getByRole('button', { name: es.common.go }).click();
    await expect.poll(() => status.getAttribute('data-status')).toBe('GENERATED');
    expect(await seriousViolations(c.page)).toEqual([]);
    await c.open('/replay/receipt/2026-11-999999');
    await c.main().getByText(es.replay.receiptNotFound).waitFor();
    expect(c.pageErrors).toEqual([]);
  });
  it('shows who acted by name (the driver, the admin), to an admin who is not a super admin too', async () => {
    type Named = { type: string; actor: { id: number | string | null; role: string; name: string | null } | null };
    const history = must(
      'wallet history',
      await c.t.request('GET', `/api/v1/admin/drivers/${driver.driverId}/wallet/history`, { token: c.root.token }),
    ).events as Named[];
    const byDriver = history.findIndex((e) => e.actor?.role === 'DRIVER');
    const byAdmin = history.map((e) => e.actor?.role).lastIndexOf('ADMIN');
    expect(byDriver).toBeGreaterThanOrEqual(0);
    expect(byAdmin).toBeGreaterThanOrEqual(0);
    expect(history[byDriver].actor).toMatchObject({ name: 'Conductora Auditada' });
    const adminName = String(c.root.admin.name);
    expect(history[byAdmin].actor).toMatchObject({ id: c.root.admin.id, name: adminName });

    const plain = await signInAdmin(c.t, { superAdmin: false, allCities: true });
    const other = await signedInPage(c.browser, c.t.baseUrl, plain);
    await other.page.goto(`${c.t.baseUrl}/console/replay/wallet/${driver.driverId}`);
    const steps = other.page.locator('main .timeline li');
    // A fresh page loads the replay's chunk first: wait for the timeline (expect.poll alone gives it 1 s).
    await steps.first().waitFor();
    // The history and the wallet load together; on a busy machine that is more than a second.
    await expect.poll(() => steps.count(), { timeout: 15_000 }).toBe(history.length);
    const actor = other.page.locator('main dd[data-field="actor"]');
    await steps.nth(byDriver).getByRole('button').click();
    await expect.poll(() => actor.textContent()).toBe(`Conductora Auditada (${es.replay.roles.DRIVER})`);
    await steps.nth(byAdmin).getByRole('button').click();
    await expect.poll(() => actor.textContent()).toBe(`${adminName} (${es.replay.roles.ADMIN})`);
    expect(other.pageErrors).toEqual([]);
    await other.page.context().close();
  });
});
