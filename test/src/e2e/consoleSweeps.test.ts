import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { MasterKey } from '@walletd/core';
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
import { describeWithChromium, screenshotDir, signInInBrowser } from '../harness/chromium';

const DOCS = screenshotDir();
// A token the chain lists; no node is asked: no address holds it, so the station has no estimate yet.
const USDC = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

/**
 * An owner at the Sweeps page: creates a USDC rule into the treasury with a daily gas cap (asked
 * for a fresh code first), sees it with the wallet's gas station to fund, and disables it; the rule
 * is the API's and the audit log names the member. On a chain whose sweeps are consolidations the
 * form asks for a fee rate instead of a gas cap and the row shows it.
 */
describeWithChromium('sweep rules in a real browser', () => {
  let t: TestDatabase;
  let con: ConsoleServer;
  let app: TestApp;
  let s: Seeded;
  const browsers: BrowserContext[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    const masterKey = new MasterKey(randomBytes(32));
    const over = {
      chains: [
        { chain: 'ethereum', network: 'devnet', rpcUrl: 'http://127.0.0.1:9', tokens: [{ contract: USDC, symbol: 'USDC', decimals: 6 }] },
        { chain: 'bitcoin', network: 'regtest', rpcUrl: 'http://127.0.0.1:9' },
      ],
    };
    con = await startConsole(t.db, over, masterKey);
    app = await startTestApp(t.db, over, masterKey);
    s = await seedCompany(t.db);
  });
  afterAll(async () => {
    for (const b of browsers) await b.close();
    await con?.close();
    await app?.close();
    await t?.drop();
  });

  it('an owner creates a USDC sweep rule with a gas cap, sees the gas station to fund, and disables the rule', async () => {
    const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });
    const walletId = (await api('POST', '/wallets', { name: 'customers', chain: 'ethereum', network: 'devnet' })).body.id as number;
    const treasury = (await api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    const email = `owner-${s.companyId}@example.com`;
    const owner = await onboardMember(con, t.db, { companyId: s.companyId, email, role: 'owner' });
    const page = await signInInBrowser(con.url, owner, browsers);

    // The sign-in code is long past by the time the rule is saved: the page asks for a fresh one.
    con.clock.now += 6 * 60_000;
    await page.getByRole('navigation').getByRole('link', { name: 'Sweeps', exact: true }).click();
    await page.getByTestId('sweeps-empty').waitFor();
    await page.getByRole('button', { name: 'New sweep rule' }).click();
    await page.getByLabel(/^Asset/).fill('USDC');
    await page.getByLabel(/^Destination/).fill(treasury);
    await page.getByLabel('Threshold (amount)').fill('5');
    await page.getByLabel(/^Gas top-ups/).fill('0.01');
    await page.getByRole('button', { name: 'Create rule' }).click();
    await page.getByLabel('Authenticator code').fill(owner.code());
    await page.getByRole('button', { name: 'Confirm' }).click();
    const notice = page.getByTestId('sweep-notice');
    await notice.filter({ hasText: 'Created: rule #' }).waitFor();
    const [rule] = await t.db('sweep_rules').where({ wallet_id: walletId });
    await expect(notice).toHaveText(`Created: rule #${rule?.id} sweeps USDC at 5 or more to ${treasury}.`);
    expect(rule).toMatchObject({ destination: treasury, threshold: '5000000', trigger: 'deposit', gas_daily_cap: '10000000000000000' });

    const row = page.getByTestId(`sweep-rule-${rule?.id}`);
    await expect(row).toContainText('after each deposit');
    await expect(row).toContainText('0.01');
    // The wallet's gas station, created with the rule's first view: the same one the API shows.
    const station = (await api('GET', `/wallets/${walletId}/gas-station`)).body;
    const shown = page.getByTestId('gas-station');
    await expect(shown).toContainText(station.address);
    await expect(shown).toContainText('0 ETH available');
    await page.screenshot({ path: join(DOCS, 'console-sweeps.png'), fullPage: true });

    await row.getByRole('button', { name: 'Disable' }).click();
    await page
      .getByTestId('sweep-notice')
      .filter({ hasText: `Disabled: rule #${rule?.id}` })
      .waitFor();
    // Once the page has reloaded the rules, the row offers the opposite.
    await row.getByRole('button', { name: 'Enable' }).waitFor();
    await expect(row).toContainText('disabled');
    expect((await api('GET', `/wallets/${walletId}/sweep-rules/${rule?.id}`)).body.enabled).toBe(false);
    const audit = await t.db('audit_log').where({ target_type: 'sweep_rule', target_id: rule?.id }).orderBy('id');
    expect(audit.map((a) => [a.action, a.actor_type])).toEqual([
      ['sweep_rule.created', 'member'],
      ['sweep_rule.updated', 'member'],
    ]);
  });

  it('a UTXO rule takes a fee rate (the form offers it only there) and the row shows it', async () => {
    const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });
    const evm = (await api('POST', '/wallets', { name: 'tokens', chain: 'ethereum', network: 'devnet' })).body.id as number;
    const walletId = (await api('POST', '/wallets', { name: 'coins', chain: 'bitcoin', network: 'regtest' })).body.id as number;
    const treasury = (await api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    const owner = await onboardMember(con, t.db, { companyId: s.companyId, email: `owner2-${s.companyId}@example.com`, role: 'owner' });
    const page = await signInInBrowser(con.url, owner, browsers);
    await page.getByRole('navigation').getByRole('link', { name: 'Sweeps', exact: true }).click();
    await page.getByRole('button', { name: 'New sweep rule' }).click();
    // An EVM wallet's rule has a gas cap and no fee rate; a UTXO wallet's the reverse.
    const wallet = page.getByRole('combobox', { name: /^Wallet/ });
    await wallet.selectOption(String(evm));
    await page.getByLabel(/^Gas top-ups/).waitFor();
    await expect(page.getByLabel(/^Fee rate/)).toHaveCount(0);
    await wallet.selectOption(String(walletId));
    await page.getByLabel(/^Fee rate/).fill('7');
    await expect(page.getByLabel(/^Gas top-ups/)).toHaveCount(0);
    await expect(page.getByLabel(/^Left on each address/)).toHaveCount(0);
    await page.getByLabel(/^Asset/).fill('BTC');
    await page.getByLabel(/^Destination/).fill(treasury);
    await page.getByLabel('Threshold (amount)').fill('0.05');
    await page.getByRole('button', { name: 'Create rule' }).click();
    const notice = page.getByTestId('sweep-notice');
    await notice.filter({ hasText: 'Created: rule #' }).waitFor();
    const [rule] = await t.db('sweep_rules').where({ wallet_id: walletId });
    expect(rule).toMatchObject({ destination: treasury, threshold: '5000000', min_left: '0', fee_rate: '7', gas_daily_cap: null });
    expect((await api('GET', `/wallets/${walletId}/sweep-rules/${rule?.id}`)).body.feeRate).toBe(7);
    const section = page.getByTestId(`sweeps-wallet-${walletId}`);
    // The list is fetched again after the create: wait for the new row before counting headers.
    await section.getByTestId(`sweep-rule-${rule?.id}`).waitFor();
    await expect(section.getByRole('columnheader', { name: 'Fee rate' })).toHaveCount(1);
    await expect(section.getByTestId(`sweep-rule-${rule?.id}`)).toContainText('7 per vbyte');
    await page.screenshot({ path: join(DOCS, 'console-sweeps-utxo.png'), fullPage: true });
  });
});
