import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import {
  type ConsoleServer,
  type Seeded,
  type TestApp,
  type TestDatabase,
  call,
  createTestDatabase,
  eventually,
  onboardMember,
  seedCompany,
  startConsole,
  startTestApp,
} from '@walletd/test-harness';
import { describeWithChromium, screenshotDir, signInInBrowser } from '../harness/chromium';

const DOCS = screenshotDir();

/**
 * The API keys page as an owner uses it: create a key with a step-up, copy the secret shown once,
 * use it against the API, revoke it, and the API refuses it on the next call. A viewer sees the
 * list without the create control. The audit log has both steps under the owner's name.
 */
describeWithChromium('API keys in the console, in a real browser', () => {
  let t: TestDatabase;
  let app: TestApp;
  let con: ConsoleServer;
  let s: Seeded;
  const browsers: BrowserContext[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    app = await startTestApp(t.db);
    con = await startConsole(t.db);
    s = await seedCompany(t.db);
  });
  afterAll(async () => {
    for (const b of browsers) await b.close();
    await con?.close();
    await app?.close();
    await t?.drop();
  });

  type Member = Awaited<ReturnType<typeof onboardMember>>;
  const signIn = (m: Member): Promise<Page> => signInInBrowser(con.url, m, browsers);
  const v1 = async (path: string, key: string) => (await call(app.url, 'GET', `/v1${path}`, { key })).status;

  it('an owner creates a key with a step-up, the secret works on the API once copied, and stops working when revoked', async () => {
    const owner = await onboardMember(con, t.db, { companyId: s.companyId, email: `owner-${s.companyId}@example.com`, role: 'owner' });
    const page = await signIn(owner);
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByTestId('keys').waitFor();

    mkdirSync(DOCS, { recursive: true });
    // The sign-in code is six minutes old when the key is made: the form asks for a fresh one.
    con.clock.now += 6 * 60_000;
    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.getByLabel('Name (to tell keys apart)').fill('reporting');
    await page.getByRole('checkbox', { name: /wallets:read — list and read wallets/ }).check();
    await page.getByRole('checkbox', { name: /transactions:read/ }).check();
    await page.getByLabel(/IP allow-list/).fill('127.0.0.1, 10.0.0.0/8');
    await page.getByLabel('Expires after').selectOption('30d');
    // A developer's form would have withdrawals:create disabled; the owner's role carries every action.
    await expect(page.getByRole('checkbox', { name: /withdrawals:create/ })).toBeEnabled();
    await page.screenshot({ path: join(DOCS, 'console-api-key-create.png'), fullPage: true });
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('Authenticator code').fill(owner.code());
    await page.getByRole('button', { name: 'Confirm and create key' }).click();

    const secret = (await page.getByTestId('new-key-secret').textContent())!.trim();
    expect(secret).toMatch(/^svc_live_/);
    await expect(page.getByTestId('new-key')).toContainText('it will not be shown again');
    const [created] = await t.db('api_keys').where({ company_id: s.companyId, name: 'reporting' }).select('*');
    expect(created).toMatchObject({ created_by: owner.memberId, actions: ['wallets:read', 'transactions:read'], wallet_ids: null });
    expect(created.allow_ips).toEqual(['127.0.0.1/32', '10.0.0.0/8']);
    expect(await v1('/me', secret)).toBe(200);
    expect(await v1('/wallets', secret)).toBe(200);
    await page.screenshot({ path: join(DOCS, 'console-api-keys.png'), fullPage: true });

    // Once dismissed the secret is gone from the page; the list shows the key by its hint only.
    await page.getByRole('button', { name: 'I have stored it' }).click();
    const row = page.locator(`tr[data-key-id="${created.id}"]`);
    await expect(row.locator('.status')).toHaveText('active');
    // The dismissal re-renders the page: read it until the secret is gone (or the wait ends, and this fails).
    expect(
      await eventually(
        () => page.content(),
        (html) => !html.includes(secret),
      ),
    ).not.toContain(secret);

    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Confirm revoke' }).click();
    await expect(row.locator('.status.revoked')).toHaveText('revoked');
    expect(await v1('/me', secret)).toBe(401);
    expect(await v1('/me', s.rootKey)).toBe(200);

    const audit = await t
      .db('audit_log')
      .where({ company_id: s.companyId, target_type: 'api_key', target_id: String(created.id) })
      .orderBy('id');
    expect(audit.map((a) => [a.action, a.actor_type, a.actor_id])).toEqual([
      ['api_key.created', 'member', String(owner.memberId)],
      ['api_key.revoked', 'member', String(owner.memberId)],
    ]);
    expect(audit.every((a) => a.ip)).toBe(true);
    expect(JSON.stringify(audit)).not.toContain(secret.slice(9));
  });

  it('a viewer sees the keys but no create control', async () => {
    const viewer = await onboardMember(con, t.db, { companyId: s.companyId, email: 'viewer@acme.test', role: 'viewer' });
    const page = await signIn(viewer);
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByTestId('keys').waitFor();
    await expect(page.getByText('Your role (viewer) may not create API keys.')).toHaveCount(1);
    await expect(page.getByRole('button', { name: 'Create API key' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Revoke' })).toHaveCount(0);
  });
});
