import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';
import {
  type ConsoleServer,
  type Seeded,
  type TestDatabase,
  createTestDatabase,
  onboardMember,
  seedCompany,
  startConsole,
} from '@walletd/test-harness';
import { describeWithChromium, launchChromium, screenshotDir } from '../harness/chromium';

const DOCS = screenshotDir();
const code = (secret: string, ms: number) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: ms });

/**
 * Members as people manage them: the owner invites an admin in the console with a step-up and hands
 * over the link; the new member, in a browser of their own, sets a password, enrolls an
 * authenticator and signs in; the owner demotes them to viewer and their next admin action is
 * refused; the owner cannot remove themself while they are the last owner.
 */
describeWithChromium('members and roles in a real browser', () => {
  let t: TestDatabase;
  let con: ConsoleServer;
  let s: Seeded;
  const browsers: BrowserContext[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    con = await startConsole(t.db);
    s = await seedCompany(t.db);
  });
  afterAll(async () => {
    for (const b of browsers) await b.close();
    await con?.close();
    await t?.drop();
  });

  const newPage = async (): Promise<Page> => {
    const browser = await launchChromium();
    browsers.push(browser);
    return browser.newPage();
  };
  const signIn = async (page: Page, email: string, password: string, totp: string) => {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Authenticator code (or a recovery code)').fill(totp);
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    await page.getByTestId('member').waitFor();
  };

  it('invite with step-up → link → password → TOTP → sign-in; demotion refuses the next admin action; the last owner stays', async () => {
    const owner = await onboardMember(con, t.db, { companyId: s.companyId, email: `owner-${s.companyId}@example.com`, role: 'owner' });
    const ownerPage = await newPage();
    await ownerPage.goto(`${con.url}/console/sign-in`);
    await signIn(ownerPage, owner.email, owner.password, owner.code());
    await ownerPage.getByRole('link', { name: 'Members', exact: true }).click();
    await ownerPage.getByTestId('members').waitFor();

    // The sign-in code is six minutes old: inviting asks for a fresh one, then shows the link once.
    con.clock.now += 6 * 60_000;
    await ownerPage.getByLabel('Email', { exact: true }).fill('ada@acme.test');
    await ownerPage.getByLabel('Role', { exact: true }).selectOption('admin');
    await ownerPage.getByRole('button', { name: 'Invite', exact: true }).click();
    await ownerPage.getByText('To invite ada@acme.test, confirm with a fresh code from your authenticator app.').waitFor();
    await ownerPage.getByLabel('Authenticator code').fill(owner.code());
    await ownerPage.getByRole('button', { name: 'Confirm', exact: true }).click();
    const linkField = ownerPage.getByLabel('One-time link');
    await linkField.waitFor();
    const url = await linkField.inputValue();
    expect(url).toMatch(new RegExp(`^${con.url}/console/links/[A-Za-z0-9_-]+$`));
    const ada = ownerPage.locator('tr[data-member="ada@acme.test"] td');
    // The list is fetched again after the invitation: wait for her row before reading it.
    await ada.first().waitFor();
    const cells = await ada.allTextContents();
    expect([cells[0], cells[2], cells[4]]).toEqual(['ada@acme.test', 'not enrolled', 'never']);
    // A new admin approves only after the cooling-off (or another owner confirming them).
    expect(cells[3]).toMatch(/^invited · new approver: approvals count from /);
    await expect(ownerPage.getByLabel('Role of ada@acme.test')).toHaveValue('admin');
    mkdirSync(DOCS, { recursive: true });
    await ownerPage.screenshot({ path: join(DOCS, 'console-members.png'), fullPage: true });

    // Ada, in her own browser: the link, a password, an authenticator (code from the shown secret), a sign-in.
    const password = 'ada keeps a long passphrase';
    const adaPage = await newPage();
    await adaPage.goto(url);
    await adaPage.getByLabel('New password').fill(password);
    await adaPage.getByLabel('Repeat it').fill(password);
    await adaPage.getByRole('button', { name: 'Set password' }).click();
    await adaPage.getByText('Password set. Sign in to continue.').waitFor();
    await adaPage.getByLabel('Email').fill('ada@acme.test');
    await adaPage.getByLabel('Password').fill(password);
    await adaPage.getByRole('button', { name: 'Sign in' }).click();
    const secret = (await adaPage.getByTestId('totp-secret').textContent())!.trim();
    con.clock.now += 30_000;
    await adaPage.getByLabel('Code from the app').fill(code(secret, con.clock.now));
    await adaPage.getByRole('button', { name: 'Confirm' }).click();
    await adaPage.getByRole('button', { name: 'I have stored them' }).click();
    await adaPage.getByRole('button', { name: 'Sign out' }).click();
    con.clock.now += 30_000;
    await signIn(adaPage, 'ada@acme.test', password, code(secret, con.clock.now));
    await expect(adaPage.getByTestId('member')).toHaveText('ada@acme.test admin');
    await adaPage.getByRole('link', { name: 'Members', exact: true }).click();
    await adaPage.getByTestId('members').waitFor();
    // An admin: the invite form, but no control over the owner's row, nor over her own role.
    await expect(adaPage.getByLabel(`Role of ${owner.email}`)).toHaveCount(0);
    await expect(adaPage.getByLabel('Role of ada@acme.test')).toHaveCount(0);
    await expect(adaPage.getByLabel('Role', { exact: true }).locator('option')).toHaveText(['admin', 'developer', 'viewer']);

    // The owner makes Ada a viewer (less power: no step-up). Her open page still shows the form; the server refuses.
    await ownerPage.getByRole('button', { name: 'Done' }).click();
    await ownerPage.getByLabel('Role of ada@acme.test').selectOption('viewer');
    await expect(ownerPage.getByTestId('members-notice')).toHaveText('ada@acme.test is now viewer.');
    await adaPage.getByLabel('Email', { exact: true }).fill('eve@acme.test');
    await adaPage.getByRole('button', { name: 'Invite', exact: true }).click();
    await expect(adaPage.getByRole('alert')).toHaveText('Your role (viewer) may not manage members; owners and admins may.');
    expect(await t.db('members').where({ email: 'eve@acme.test' }).first()).toBeUndefined();

    // The last owner cannot remove themself, and is told why.
    const mine = ownerPage.locator(`tr[data-member="${owner.email}"]`);
    await mine.getByRole('button', { name: 'Remove' }).click();
    await mine.getByRole('button', { name: 'Confirm removal' }).click();
    await expect(ownerPage.getByRole('alert')).toHaveText(
      `${owner.email} is the company's last owner: make another member owner first, a company always keeps one`,
    );
    expect((await t.db('members').where({ id: owner.memberId }).first()).removed_at).toBeNull();

    const actions = (await t.db('audit_log').where({ company_id: s.companyId }).orderBy('id').select('action', 'actor_id')).filter((r) =>
      /^member\.(invited|role_changed|removed)$/.test(r.action),
    );
    expect(actions).toEqual([
      { action: 'member.invited', actor_id: String(owner.memberId) },
      { action: 'member.role_changed', actor_id: String(owner.memberId) },
    ]);
  });
});
