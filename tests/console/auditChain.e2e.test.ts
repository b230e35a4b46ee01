import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { es } from '../../console/src/i18n/es.js';
import { walletStream } from '../../domain/wallet/events.js';
import { verifyExport } from '../../infra/audit/exportFile.js';
import { settlementSteps } from '../api/settlementFlows.js';
import { startTestService, TEST_SUPER_ADMIN, type TestService } from '../support/testService.js';
import { chromiumMissing, ensureConsoleBuilt, launchChromium, seriousViolations } from './consoleBrowser.js';

/**
 * The replay screens' chain status (issue #33) in headless Chromium: the wallet and the receipt say their chain
 * verifies up to the instant shown and up to the last anchor, the export downloads and verifies offline, and a
 * changed stored event shows as a break naming its revision.
 */
const missing = chromiumMissing();
if (missing) console.log(`console audit browser tests skipped: ${missing}`);

describe.skipIf(missing !== null)('replay chain status (Chromium)', () => {
  let t: TestService;
  let browser: Browser;
  let page: Page;
  let driverId: number;
  let receiptId: string;
  const url = (path: string) => `${t.baseUrl}/console${path}`;
  const chain = (which: string) => page.locator(`main [data-chain="${which}"]`);

  beforeAll(async () => {
    ensureConsoleBuilt();
    t = await startTestService({ env: { OFFICIAL_RATE_VES: '36.5', AUDIT_ANCHOR_INTERVAL_SECONDS: '0' } });
    const s = settlementSteps(t);
    const driver = await s.driverWithBalance('1', 12.5, 'Conductora Auditada');
    driverId = driver.driverId;
    receiptId = s.byDriver((await s.run('cutoff')).receipts, driver).id;
    const root = await s.root();
    expect((await s.api.post('/admin/audit/anchors', root.token)).status).toBe(201);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    page = await context.newPage();
    await page.goto(url('/'));
    await page.getByLabel(es.signIn.email).fill(TEST_SUPER_ADMIN.email);
    await page.getByLabel(es.signIn.password).fill(TEST_SUPER_ADMIN.password);
    await page.getByRole('button', { name: es.signIn.submit }).click();
    await page.getByRole('button', { name: es.nav.signOut }).waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it("shows the receipt's chain verified up to the instant and the anchor", async () => {
    await page.goto(url(`/replay/receipt/${receiptId}`));
    await expect.poll(() => chain('as-of').textContent()).toMatch(/verifica hasta este instante/);
    await expect.poll(() => chain('anchor').textContent()).toMatch(/Verifica hasta el último anclaje/);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('downloads the wallet export, which verifies offline; a changed stored event is named as the break', async () => {
    await page.goto(url(`/replay/wallet/${driverId}`));
    await expect.poll(() => chain('as-of').textContent()).toMatch(/verifica hasta este instante/);
    expect(await seriousViolations(page)).toEqual([]);
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: es.chain.download }).click(),
    ]);
    expect(file.suggestedFilename()).toBe(`${walletStream(driverId)}.chain.jsonl`);
    const text = readFileSync((await file.path())!, 'utf8');
    expect(verifyExport(text)).toMatchObject({ stream: walletStream(driverId), problem: null });

    await t.service.ctx.pool.query(
      `UPDATE events SET data = jsonb_set(data, '{amountCents}', '999999') WHERE stream_id = $1 AND stream_position = 1`,
      [walletStream(driverId)],
    );
    await page.reload();
    await expect.poll(() => chain('as-of').textContent()).toMatch(/NO verifica en la revisión 1/);
    await expect.poll(() => chain('anchor').textContent()).toMatch(/NO verifica contra el último anclaje/);
  });

  it('says first and loudly that a new anchor was refused over a rewritten history', async () => {
    // The head's stored hash rewritten as a rewriter who recomputed it would leave it: no longer the anchored one.
    await t.service.ctx.pool.query(
      `UPDATE events SET metadata = jsonb_set(metadata, '{hash}', to_jsonb(repeat('0', 64)))
        WHERE stream_id = $1 AND stream_position = (SELECT max(stream_position) FROM events WHERE stream_id = $1)`,
      [walletStream(driverId)],
    );
    const s = settlementSteps(t);
    expect((await s.api.post('/admin/audit/anchors', (await s.root()).token)).status).toBe(409);
    await page.goto(url(`/replay/wallet/${driverId}`));
    await expect.poll(() => chain('refused').textContent()).toMatch(/^ALERTA: el anclaje .* fue rechazado/);
    expect(await page.locator('main [role="alert"]').count()).toBeGreaterThan(0);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
