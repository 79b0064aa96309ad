import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { BrowserContext, Page } from 'playwright-core';
import { CONSOLE_CSP } from '@walletd/server';
import { createTestDatabase, runWalletdAsync, seedCompany, startConsole, type TestDatabase } from '@walletd/test-harness';
import { describeWithChromium, launchChromium, screenshotDir } from '../harness/chromium';

const DOCS = screenshotDir();
const EMAIL = 'ada@example.com';
const PASSWORD = 'correct horse battery staple';

/** The code an authenticator app shows for `secret` at the console's (test-moved) clock. */
const code = (secret: string, nowMs: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: nowMs });

describeWithChromium('the console in a real browser', () => {
  let t: TestDatabase;
  let con: Awaited<ReturnType<typeof startConsole>>;
  let browser: BrowserContext;
  let page: Page;
  const cspViolations: string[] = [];
  // The member the first test enrolls: the refusals below sign in as them.
  let secret = '';

  beforeAll(async () => {
    t = await createTestDatabase();
    con = await startConsole(t.db);
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('console', (m) => {
      if (/Content.Security.Policy|Refused to/i.test(m.text())) cspViolations.push(m.text());
    });
  });
  afterAll(async () => {
    await browser?.close();
    await con?.close();
    await t?.drop();
  });

  it('invite link → password → TOTP enrollment → sign out → sign in with TOTP → the shell, under a strict CSP', async () => {
    const s = await seedCompany(t.db);
    const env = {
      DATABASE_URL: t.url,
      WALLETD_MASTER_KEY: randomBytes(32).toString('hex'),
      WALLETD_DATA_DIR: mkdtempSync(join(tmpdir(), 'walletd-console-browser-')),
    };
    const invite = await runWalletdAsync(
      // The operator's bootstrap path: an owner for a company where no owner can sign in yet.
      ['admin', 'member', 'invite', '--company', String(s.companyId), '--email', EMAIL, '--role', 'owner'],
      env,
    );
    expect(invite.status).toBe(0);

    // The link the operator hands over: a client route, answered with the app's index.html.
    const opened = await page.goto(con.url + invite.json.path);
    const headers = opened!.headers();
    expect(headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(await opened!.text()).not.toMatch(/<script(?![^>]*\bsrc=)|<style|\sstyle=/);

    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat it').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();

    // Signed in with the new password, an owner owes an authenticator before anything else.
    await page.getByText('Password set. Sign in to continue.').waitFor();
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    secret = (await page.getByTestId('totp-secret').textContent())!.trim();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await page.getByLabel('Code from the app').fill(code(secret, con.clock.now));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByTestId('recovery-codes').waitFor();
    await expect(page.getByTestId('recovery-codes').locator('li')).toHaveCount(10);
    await page.getByRole('button', { name: 'I have stored them' }).click();
    await expect(page.getByTestId('member')).toContainText(EMAIL);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to walletd' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    mkdirSync(DOCS, { recursive: true });
    await page.getByLabel('Email').fill(EMAIL);
    await page.screenshot({ path: join(DOCS, 'console-sign-in.png') });

    // The enrollment code's step is spent: the next sign-in uses the next 30-second step.
    con.clock.now += 30_000;
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Authenticator code (or a recovery code)').fill(code(secret, con.clock.now));
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    await page.getByTestId('member').waitFor();
    await expect(page.getByTestId('member')).toHaveText(`${EMAIL} owner`);
    expect(new URL(page.url()).pathname).toBe('/console/');
    await page.screenshot({ path: join(DOCS, 'console-shell.png') });

    // Every script and style came from a file on this origin: the browser refused nothing.
    expect(cspViolations).toEqual([]);
  });

  it('refuses a wrong code, a replayed code, a form posted from another origin and an expired session', async () => {
    const signInPage = async (c: string) => {
      await page.goto(`${con.url}/console/sign-in`);
      await page.getByLabel('Email').fill(EMAIL);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByLabel('Authenticator code (or a recovery code)').fill(c);
      await page.getByRole('button', { name: 'Verify and sign in' }).click();
    };
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to walletd' }).waitFor();

    // A wrong code: an error on the form, no session.
    con.clock.now += 30_000;
    const right = code(secret, con.clock.now);
    await signInPage(right === '000000' ? '111111' : '000000');
    await expect(page.getByRole('alert')).toHaveText(/incorrect|invalid|not accepted/i);
    await expect(page.getByTestId('member')).toHaveCount(0);

    // The right code signs in once; the same code again (same 30-second step) is refused.
    await signInPage(right);
    await page.getByTestId('member').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to walletd' }).waitFor();
    await signInPage(right);
    await expect(page.getByRole('alert')).toHaveText(/already used|incorrect/i);
    await expect(page.getByTestId('member')).toHaveCount(0);

    // Signed in again (the next step), a page on another origin posts a form to the console with
    // the member's cookies (same host, another port: the same site, so SameSite does not stop it).
    con.clock.now += 30_000;
    await signInPage(code(secret, con.clock.now));
    await page.getByTestId('member').waitFor();
    const keysBefore = await t.db('api_keys').count({ n: '*' }).first();
    const attacker = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(
        `<form method="POST" action="${con.url}/console/api/keys" enctype="text/plain">` +
          `<input name='{"actions":["withdrawals:create"],"walletIds":"*","x":"' value='"}'></form>` +
          '<script>document.forms[0].submit()</script>',
      );
    });
    await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', () => r()));
    try {
      const origin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
      const answer = page.waitForResponse((r) => r.url() === `${con.url}/console/api/keys`);
      await page.goto(origin);
      const refused = await answer;
      expect(refused.status()).toBe(403);
      expect((await refused.json()).code).toBe('csrf_failed');
    } finally {
      attacker.close();
    }
    expect(await t.db('api_keys').count({ n: '*' }).first()).toEqual(keysBefore);

    // Idle past the timeout: the next page load lands on the sign-in form, the session is gone.
    await page.goto(`${con.url}/console/`);
    await page.getByTestId('member').waitFor();
    con.clock.now += 31 * 60_000;
    await page.goto(`${con.url}/console/`);
    await page.getByRole('heading', { name: 'Sign in to walletd' }).waitFor();
    const me = await page.evaluate(async () => (await fetch('/console/api/me')).status);
    expect(me).toBe(401);
  });
});
