import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, type Page, chromium } from 'playwright-core';
// Registers the waiting locator matchers (toHaveText, toHaveCount…) for every browser suite.
import './locatorMatchers';

/** Debian's chromium (`apt-get install chromium`): nothing is downloaded, the tests drive this one. */
export const CHROMIUM = '/usr/bin/chromium';

export const chromiumAvailable = (): boolean => existsSync(CHROMIUM);

/**
 * `describe` for suites that need a real browser: skipped with a visible line when chromium is
 * missing, unless WALLETD_REQUIRE_NODES is set (CI), where a missing browser fails the run.
 */
export function describeWithChromium(name: string, fn: () => void): void {
  if (chromiumAvailable()) {
    describe(name, fn);
    return;
  }
  if (process.env.WALLETD_REQUIRE_NODES) throw new Error(`chromium is required (WALLETD_REQUIRE_NODES is set): apt-get install chromium`);
  process.stdout.write(`SKIPPED "${name}": chromium is not installed (apt-get install chromium)\n`);
  describe.skip(name, fn);
}

/** A headless chromium with a fresh profile that talks to nothing but the pages it is sent to. */
export async function launchChromium(): Promise<BrowserContext> {
  return chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'walletd-chromium-')), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1100, height: 700 },
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
}

/**
 * Where the browser tests put their screenshots: `docs/` (docs/guide/console.md shows them) when WALLETD_SCREENSHOTS=1
 * (`WALLETD_SCREENSHOTS=1 npx jest test/src/e2e/console` retakes them on purpose), else a
 * temporary folder, so `npm test` leaves a clone as it found it.
 */
export function screenshotDir(): string {
  if (process.env.WALLETD_SCREENSHOTS === '1') return join(__dirname, '..', '..', '..', 'docs');
  return mkdtempSync(join(tmpdir(), 'walletd-screenshots-'));
}

/**
 * A member signs in through the pages (password, then the authenticator code) in a browser of
 * their own, added to `browsers` so the suite closes it; the page is on the signed-in shell.
 */
export async function signInInBrowser(
  consoleUrl: string,
  m: { email: string; password: string; code: () => string },
  browsers: BrowserContext[],
): Promise<Page> {
  const browser = await launchChromium();
  browsers.push(browser);
  const page = await browser.newPage();
  await page.goto(`${consoleUrl}/console/sign-in`);
  await page.getByLabel('Email').fill(m.email);
  await page.getByLabel('Password').fill(m.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Authenticator code (or a recovery code)').fill(m.code());
  await page.getByRole('button', { name: 'Verify and sign in' }).click();
  await page.getByTestId('member').waitFor();
  return page;
}
