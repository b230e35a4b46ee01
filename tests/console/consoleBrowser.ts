import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe } from 'vitest';
import { signInAdmin, type SignedInAdmin } from '../support/actors.js';
import { startTestService, type ServiceOptions, type TestService } from '../support/testService.js';

/**
 * Headless Chromium for the console's browser tests: Debian's `chromium` (CHROMIUM_PATH elsewhere),
 * driven by playwright-core, which downloads no browser of its own.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or null when they can. */
export const chromiumMissing = (): string | null =>
  existsSync(CHROMIUM_PATH) ? null : `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`;

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });

const CONSOLE = join(import.meta.dirname, '../../console');

const newestIn = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce(
    (max, e) => Math.max(max, e.isDirectory() ? newestIn(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs),
    0,
  );

/**
 * The console's production build, as the service serves it: `npm ci` builds it (prepare); it is built
 * again here when a source is newer than the build, so a test never runs an old console.
 */
export const ensureConsoleBuilt = () => {
  const index = join(CONSOLE, 'dist/index.html');
  const sources = Math.max(
    newestIn(join(CONSOLE, 'src')),
    statSync(join(CONSOLE, 'index.html')).mtimeMs,
    statSync(join(CONSOLE, 'vite.config.ts')).mtimeMs,
  );
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return;
  // The production build whatever the test runner's NODE_ENV ('test' would bundle React's development build).
  execFileSync('npm', ['run', 'build', '-w', 'console'], {
    cwd: join(CONSOLE, '..'),
    stdio: 'pipe',
    env: { ...process.env, NODE_ENV: 'production' },
  });
};

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * The page's serious and critical accessibility violations (axe-core, WCAG 2 A and AA rules). axe is
 * evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern.
 */
export const seriousViolations = async (page: Page): Promise<AxeViolation[]> => {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            ctx: Document,
            opts: object,
          ) => Promise<{
            violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
          }>;
        };
      }
    ).axe;
    const r = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      resultTypes: ['violations'],
    });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.slice(0, 3).map((n) => String(n.target)),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
};

/**
 * A page of the console signed in as `admin` (the session the sign-in screen stores), in Caracas time
 * and Spanish unless `locale` says another browser language, collecting script errors.
 */
export const signedInPage = async (
  browser: Browser,
  baseUrl: string,
  admin: { token: string; admin: unknown },
  { locale = 'es-VE', viewport = { width: 1280, height: 800 } } = {},
): Promise<{ page: Page; pageErrors: string[] }> => {
  const context = await browser.newContext({ viewport, locale, timezoneId: 'America/Caracas' });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${baseUrl}/console/`);
  await page.evaluate((s) => sessionStorage.setItem('console.session', JSON.stringify(s)), admin);
  return { page, pageErrors };
};

/** What a console browser suite's tests work with, ready once its beforeAll has run. */
export interface ConsoleSuite {
  t: TestService;
  browser: Browser;
  /** A page signed in as the super admin `root`. */
  page: Page;
  pageErrors: string[];
  root: SignedInAdmin;
  /** The page's main region. */
  main(): Locator;
  /** Opens a console address (`/payment-forms`) on the page. */
  open(path: string): Promise<unknown>;
}

/**
 * The opening every console browser test shares: skipped (saying why) without Chromium; otherwise the
 * console built, the service started with `service`, the super admin signed in, one Chromium with a page
 * signed in as them; all closed after. The body's own beforeAll runs after this one (its seed data).
 */
export const consoleSuite = (name: string, service: ServiceOptions, body: (c: ConsoleSuite) => void) => {
  const missing = chromiumMissing();
  if (missing) console.log(`console browser tests (${name}) skipped: ${missing}`);
  describe.skipIf(missing !== null)(`${name} (Chromium)`, () => {
    const c = {
      main: () => c.page.locator('main'),
      open: (path: string) => c.page.goto(`${c.t.baseUrl}/console${path}`),
    } as ConsoleSuite;
    beforeAll(async () => {
      ensureConsoleBuilt();
      c.t = await startTestService(service);
      c.root = await signInAdmin(c.t);
      c.browser = await launchChromium();
      Object.assign(c, await signedInPage(c.browser, c.t.baseUrl, c.root));
    }, 120_000);
    afterAll(async () => {
      await c.browser?.close();
      await c.t?.stop();
    });
    body(c);
  });
};
