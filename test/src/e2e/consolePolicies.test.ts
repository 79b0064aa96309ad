import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { generateSealingKeyPair } from '@walletd/core';
import {
  type ConsoleServer,
  type Seeded,
  type TestApp,
  type TestDatabase,
  call,
  createTestDatabase,
  onboardMember,
  seedCompany,
  startConsole,
  startTestApp,
} from '@walletd/test-harness';
import { describeWithChromium, launchChromium, screenshotDir } from '../harness/chromium';

const DOCS = screenshotDir();

/**
 * An owner at the policies, encryption-key and audit-log pages: creates a policy that needs two
 * approvals (asked for a fresh code first), edits and disables it, registers the company's public
 * key (a private key pasted by mistake is refused) and sees its fingerprint, then finds each step
 * in the audit log with their email and filters it.
 */
describeWithChromium('policies, encryption key and audit log in a real browser', () => {
  let t: TestDatabase;
  let con: ConsoleServer;
  let app: TestApp;
  let s: Seeded;
  let browser: BrowserContext;
  let walletId: number;

  beforeAll(async () => {
    t = await createTestDatabase();
    con = await startConsole(t.db, { chains: [{ chain: 'ethereum', network: 'sepolia', rpcUrl: 'http://127.0.0.1:9' }] });
    app = await startTestApp(t.db, { webhooks: { allowCidrs: ['127.0.0.0/8'] } });
    s = await seedCompany(t.db);
    [{ id: walletId }] = await t
      .db('wallets')
      .insert({ company_id: s.companyId, name: 'treasury', chain: 'ethereum', network: 'sepolia', secret_envelope: {} })
      .returning('id');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await con?.close();
    await app?.close();
    await t?.drop();
  });

  const nav = (page: Page, name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true }).click();

  it('an owner creates, edits and disables a policy with step-up, sets the encryption key, and reads it all in the audit log', async () => {
    const email = `owner-${s.companyId}@example.com`;
    const owner = await onboardMember(con, t.db, { companyId: s.companyId, email, role: 'owner' });
    const page = await browser.newPage();
    await page.goto(`${con.url}/console/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Authenticator code (or a recovery code)').fill(owner.code());
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    await page.getByTestId('member').waitFor();

    // The sign-in code is long past by the time the policy is saved: the page asks for a fresh one.
    con.clock.now += 6 * 60_000;
    await nav(page, 'Policies');
    await page.getByTestId('policies-empty').waitFor();
    await page.getByRole('button', { name: 'New policy' }).click();
    await page.getByLabel('Name').fill('two sign-offs');
    await page.getByLabel('Rule').selectOption('approval_above');
    await page.getByLabel(/^Asset/).fill('ethereum:sepolia:eth');
    await page.getByLabel('At or above (amount)').fill('1.0.0');
    await page.getByLabel('Approvals needed').fill('2');
    await page.getByLabel(/^Wallet ids/).fill(String(walletId));
    await page.getByRole('button', { name: 'Create policy' }).click();
    await page.getByLabel('Authenticator code').fill(owner.code());
    await page.getByRole('button', { name: 'Confirm' }).click();
    // The server names the field of the mistake; the form stays as typed.
    await expect(page.getByRole('alert')).toHaveText('"threshold" must be an exact decimal string such as "1.5"');
    await page.getByLabel('At or above (amount)').fill('1');
    await page.getByRole('button', { name: 'Create policy' }).click();
    const sentence = page.getByTestId('policies').getByTestId('sentence');
    await expect(sentence).toHaveText(`Withdrawals of 1 ETH or more from wallet "treasury" (#${walletId}) need 2 approvals`);
    const [policy] = await t.db('spending_policies').where({ company_id: s.companyId });
    expect(policy).toMatchObject({ kind: 'approval_above', params: { threshold: '1000000000000000000', approvals: 2 }, enabled: true });

    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('At or above (amount)').fill('2.5');
    await page.getByLabel(/^Wallet ids/).fill('');
    await page.getByRole('button', { name: 'Save policy' }).click();
    // Each wait is on the words expected (the page answers after the server does).
    await page
      .getByTestId('policy-notice')
      .filter({ hasText: 'Saved: Withdrawals of 2.5 ETH or more from any wallet need 2 approvals.' })
      .waitFor();
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('button', { name: 'Enable' }).waitFor();
    await expect(page.getByTestId(`policy-${policy.id}`).locator('td').nth(2)).toHaveText('disabled');
    expect(await t.db('spending_policies').where({ id: policy.id }).first('enabled')).toEqual({ enabled: false });
    mkdirSync(DOCS, { recursive: true });
    await page.screenshot({ path: join(DOCS, 'console-policies.png'), fullPage: true });

    // The encryption key: a private key pasted by mistake is refused in words; the public key is taken.
    const pair = generateSealingKeyPair();
    await nav(page, 'Encryption key');
    await page.getByTestId('no-key').waitFor();
    await page.getByLabel('Public key (PEM)').fill(pair.privateKeyPem);
    await page.getByRole('button', { name: 'Set encryption key' }).click();
    await expect(page.getByRole('alert')).toHaveText(/^"publicKeyPem": this is a PRIVATE key, not a public key/);
    await page.getByLabel('Public key (PEM)').fill(pair.publicKeyPem);
    await page.getByRole('button', { name: 'Set encryption key' }).click();
    const der = Buffer.from(pair.publicKeyPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    await expect(page.getByTestId('fingerprint')).toHaveText(createHash('sha256').update(der).digest('hex'));
    await expect(page.getByTestId('key-set')).toHaveText(new RegExp(` by ${email}$`));

    // A change made through the API is in the log too, under the key and the member it acts for.
    const hook = await call(app.url, 'POST', '/v1/webhooks', {
      key: s.rootKey,
      body: { type: 'api', config: { url: 'http://127.0.0.1:9/hook?token=receiver-credential' }, events: ['*'] },
    });
    expect(hook.status).toBe(201);
    const [{ id: rootKeyId }] = await t.db('api_keys').where({ company_id: s.companyId }).select('id');

    // The audit log: each step with who did it.
    await nav(page, 'Audit log');
    const rows = page.getByTestId('audit').locator('tbody tr');
    await rows.first().waitFor();
    const cells = async () =>
      (await rows.all()).map(async (r) => {
        const td = await r.locator('td').allTextContents();
        return [td[3], td[1]];
      });
    const seen = await Promise.all(await cells());
    for (const action of ['policy.created', 'policy.changed', 'policy.disabled', 'encryption_key.set', 'member.signed_in'])
      expect(seen).toContainEqual([action, email]);
    expect(seen).toContainEqual(['webhook.created', `API key #${rootKeyId} (${email})`]);
    const hookRow = await rows.filter({ hasText: 'webhook.created' }).locator('td.details').textContent();
    expect(hookRow).toContain('destination: http://127.0.0.1:9/hook');
    expect(hookRow).not.toContain('receiver-credential');
    await page.screenshot({ path: join(DOCS, 'console-audit.png'), fullPage: true });

    await page.getByLabel('Action starts with').fill('policy.');
    await page.getByRole('button', { name: 'Filter' }).click();
    await rows.first().filter({ hasText: 'policy.disabled' }).waitFor();
    await expect(rows).toHaveCount(3);
    const filtered = await Promise.all(await cells());
    expect(filtered).toEqual([
      ['policy.disabled', email],
      ['policy.changed', email],
      ['policy.created', email],
    ]);
  });
});
