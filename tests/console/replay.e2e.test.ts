import { formatInTimeZone } from 'date-fns-tz';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fmt } from '../../console/src/i18n/index.js';
import { es } from '../../console/src/i18n/es.js';
import { must, settlementSteps } from '../api/settlementFlows.js';
import { signInAdmin, type SignedInAdmin, type SignedInDriver } from '../support/actors.js';
import { startTestService, type TestService } from '../support/testService.js';
import {
  chromiumMissing,
  ensureConsoleBuilt,
  launchChromium,
  seriousViolations,
  signedInPage,
} from './consoleBrowser.js';

/**
 * The auditor's replay (issue 31): at every step the wallet screen shows what the API's as_of answers
 * for that step's instant, reservations of the driver's receipts included; an exact instant typed
 * shows the API's answer for that instant; a receipt is found by its number.
 */
const missing = chromiumMissing();
if (missing) console.log(`console replay browser tests skipped: ${missing}`);

type Step = { type: string; recorded_at: string; reservation: string | null; data: Record<string, unknown> };
const FIELDS = ['balanceUSD', 'pendingPayoutUSD', 'withdrawableUSD', 'cashDebtUSD'] as const;

describe.skipIf(missing !== null)('replay (Chromium)', () => {
  let t: TestService;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[];
  let root: SignedInAdmin;
  let driver: SignedInDriver;
  let receipt: { id: string; receipt_number: string };

  const main = () => page.locator('main');
  const walletAsOf = async (asOf: string) =>
    must(
      'wallet as of',
      await t.request('GET', `/api/v1/admin/drivers/${driver.driverId}/wallet?as_of=${encodeURIComponent(asOf)}`, {
        token: root.token,
      }),
    ).wallet as Record<(typeof FIELDS)[number], number>;
  const shown = () =>
    Promise.all(FIELDS.map((f) => main().locator(`dd[data-field="${f}"]`).textContent())).then((v) =>
      Object.fromEntries(FIELDS.map((f, i) => [f, v[i]])),
    );
  const expected = (w: Record<(typeof FIELDS)[number], number>) =>
    Object.fromEntries(FIELDS.map((f) => [f, fmt.usd(w[f])]));

  beforeAll(async () => {
    ensureConsoleBuilt();
    t = await startTestService({ env: { OFFICIAL_RATE_VES: '36.5' } });
    root = await signInAdmin(t);
    const s = settlementSteps(t);
    // Earned, reserved by a cutoff, paid by the payout (reservation released, PAYOUT_SENT), then earned again.
    driver = await s.driverWithBalance('3', 44.55, 'Conductora Auditada');
    await s.credit(driver.driverId, 83.19);
    receipt = s.byDriver((await s.run('cutoff')).receipts, driver);
    expect(s.byDriver((await s.run('payout')).receipts, driver).status).toBe('PAID');
    await s.credit(driver.driverId, 5.7);
    browser = await launchChromium();
    ({ page, pageErrors } = await signedInPage(browser, t.baseUrl, root));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it("shows, at every step of the wallet's timeline, what the API's as_of answers for that step", async () => {
    const history = must(
      'wallet history',
      await t.request('GET', `/api/v1/admin/drivers/${driver.driverId}/wallet/history`, { token: root.token }),
    ).events as Step[];
    // The receipt's reservation and its release are steps of their own, between the movements.
    expect(history.map((e) => e.reservation ?? e.type)).toEqual([
      'WalletOpened',
      'PayoutAccountSet',
      'LedgerEntryRecorded',
      'LedgerEntryRecorded',
      'RESERVED',
      'RELEASED',
      'LedgerEntryRecorded',
      'LedgerEntryRecorded',
    ]);
    await page.goto(`${t.baseUrl}/console/replay/wallet/${driver.driverId}`);
    const steps = main().locator('.timeline li');
    await expect.poll(() => steps.count()).toBe(history.length);
    expect(await seriousViolations(page)).toEqual([]);
    const seen: Record<string, string | null>[] = [];
    for (const [i, step] of history.entries()) {
      await steps.nth(i).getByRole('button').click();
      const want = expected(await walletAsOf(step.recorded_at));
      await expect.poll(shown, { message: `step ${i + 1} ${step.reservation ?? step.type}` }).toEqual(want);
      seen.push(want);
    }
    // What the auditor reads: right after the earnings, 127,74 available; the cutoff reserves it (pending,
    // not withdrawable); after the payout nothing is both paid and available; the last credit shows at once.
    expect(seen[3]).toMatchObject({ balanceUSD: 'US$ 127,74', withdrawableUSD: 'US$ 127,74' });
    expect(seen[4]).toMatchObject({ pendingPayoutUSD: 'US$ 127,74', withdrawableUSD: 'US$ 0,00' });
    expect(seen[6]).toMatchObject({
      balanceUSD: 'US$ 0,00',
      pendingPayoutUSD: 'US$ 0,00',
      withdrawableUSD: 'US$ 0,00',
    });
    expect(seen[7]).toMatchObject({ balanceUSD: 'US$ 5,70', withdrawableUSD: 'US$ 5,70' });
    await expect.poll(() => steps.nth(4).textContent()).toContain(receipt.receipt_number);
    await expect.poll(() => steps.nth(7).textContent()).toContain(`${es.enums.ledgerType.MANUAL_ADJUSTMENT} +US$ 5,70`);
  });

  it('shows the state as of an exact instant typed, and finds a receipt by its number', async () => {
    const history = must(
      'wallet history',
      await t.request('GET', `/api/v1/admin/drivers/${driver.driverId}/wallet/history`, { token: root.token }),
    ).events as Step[];
    // One millisecond before the payout's PAYOUT_SENT: reserved no more, not yet debited.
    const instant = new Date(new Date(history[6].recorded_at).getTime() - 1).toISOString();
    await page.goto(`${t.baseUrl}/console/replay/wallet/${driver.driverId}`);
    await main().locator('.timeline li').first().waitFor();
    await main()
      .getByLabel(es.replay.exactInstant)
      .fill(formatInTimeZone(instant, 'America/Caracas', "yyyy-MM-dd'T'HH:mm:ss.SSS"));
    await main().getByRole('button', { name: es.common.go }).click();
    await expect.poll(shown).toEqual(expected(await walletAsOf(instant)));

    // The receipt by its number, as of the instant of its issue: GENERATED.
    await page.goto(`${t.baseUrl}/console/replay/receipt/${receipt.receipt_number}`);
    const status = main().locator('.kv dd .badge').first();
    await expect.poll(() => status.getAttribute('data-status')).toBe('PAID');
    await main().getByText(receipt.receipt_number).first().waitFor();
    const issued = history[4].recorded_at;
    await main()
      .getByLabel(es.replay.exactInstant)
      .fill(formatInTimeZone(issued, 'America/Caracas', "yyyy-MM-dd'T'HH:mm:ss.SSS"));
    await main().getByRole('button', { name: es.common.go }).click();
    await expect.poll(() => status.getAttribute('data-status')).toBe('GENERATED');
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto(`${t.baseUrl}/console/replay/receipt/2026-11-999999`);
    await main().getByText(es.replay.receiptNotFound).waitFor();
    expect(pageErrors).toEqual([]);
  });
  it('shows who acted by name (the driver, the admin), to an admin who is not a super admin too', async () => {
    type Named = { type: string; actor: { id: number | string | null; role: string; name: string | null } | null };
    const history = must(
      'wallet history',
      await t.request('GET', `/api/v1/admin/drivers/${driver.driverId}/wallet/history`, { token: root.token }),
    ).events as Named[];
    const byDriver = history.findIndex((e) => e.actor?.role === 'DRIVER');
    const byAdmin = history.map((e) => e.actor?.role).lastIndexOf('ADMIN');
    expect(byDriver).toBeGreaterThanOrEqual(0);
    expect(byAdmin).toBeGreaterThanOrEqual(0);
    expect(history[byDriver].actor).toMatchObject({ name: 'Conductora Auditada' });
    const adminName = String(root.admin.name);
    expect(history[byAdmin].actor).toMatchObject({ id: root.admin.id, name: adminName });

    const plain = await signInAdmin(t, { superAdmin: false, allCities: true });
    const other = await signedInPage(browser, t.baseUrl, plain);
    await other.page.goto(`${t.baseUrl}/console/replay/wallet/${driver.driverId}`);
    const steps = other.page.locator('main .timeline li');
    await expect.poll(() => steps.count()).toBe(history.length);
    const actor = other.page.locator('main dd[data-field="actor"]');
    await steps.nth(byDriver).getByRole('button').click();
    await expect.poll(() => actor.textContent()).toBe(`Conductora Auditada (${es.replay.roles.DRIVER})`);
    await steps.nth(byAdmin).getByRole('button').click();
    await expect.poll(() => actor.textContent()).toBe(`${adminName} (${es.replay.roles.ADMIN})`);
    expect(other.pageErrors).toEqual([]);
    await other.page.context().close();
  });
});
