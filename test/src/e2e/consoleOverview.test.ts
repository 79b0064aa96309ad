import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { type ChainSettings, MasterKey, createLogger } from '@walletd/core';
import { createIndexer, type Indexer } from '@walletd/indexer';
import { loadPlugins } from '@walletd/server';
import {
  type Anvil,
  type ConsoleServer,
  type Seeded,
  type TestApp,
  type TestDatabase,
  call,
  createTestDatabase,
  eventually,
  onboardMember,
  type RpcProxy,
  seedCompany,
  startAnvil,
  startConsole,
  startRpcProxy,
  startTestApp,
} from '@walletd/test-harness';
import { describeWithChromium, screenshotDir, signInInBrowser } from '../harness/chromium';

const DOCS = screenshotDir();

/**
 * The read pages as a member sees them, over a real indexer following anvil: a deposit is indexed
 * and confirmed, the overview shows the wallet's balance and the chain's health, the transactions
 * page finds the deposit by its hash, and a withdrawal made through the API shows on the
 * withdrawals page with its history.
 */
describeWithChromium('the overview, transactions and withdrawals pages in a real browser', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let indexer: Indexer;
  let app: TestApp;
  let con: ConsoleServer;
  let s: Seeded;
  let proxy: RpcProxy;
  let nodeDown = false;
  const browsers: BrowserContext[] = [];
  const recipient = '0x000000000000000000000000000000000000dEaD';
  const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    const settings: ChainSettings = {
      chain: 'ethereum',
      network: 'devnet',
      rpcUrl: anvil.url,
      confirmations: 2,
      startBlock: 0,
      pollIntervalMs: 100,
    };
    const key = new MasterKey(Buffer.alloc(32, 7));
    // The API and the console reach the node through a proxy the test can cut; the indexer reads it directly.
    proxy = await startRpcProxy(anvil.url, { before: () => (nodeDown ? 'drop' : undefined) });
    const over = {
      chains: [{ ...settings, rpcUrl: proxy.url }],
      indexer: { healthMaxAgeMs: 60_000, stalledAfterMs: 60_000 },
      reconciliation: { confirmDelayMs: 200 },
    };
    app = await startTestApp(t.db, over, key);
    con = await startConsole(t.db, over, key);
    indexer = createIndexer({
      db: t.db,
      logger: createLogger({ level: 'silent' }),
      registry: loadPlugins(),
      chains: [settings],
      threads: 1,
    });
    indexer.start();
    s = await seedCompany(t.db);
  });
  afterAll(async () => {
    for (const b of browsers) await b.close();
    await indexer?.stop();
    await proxy?.close();
    await con?.close();
    await app?.close();
    await anvil?.stop();
    await t?.drop();
  });

  type Member = Awaited<ReturnType<typeof onboardMember>>;
  const signIn = (m: Member): Promise<Page> => signInInBrowser(con.url, m, browsers);

  it('shows the confirmed deposit in the balances, the chain’s health, the deposit by its hash, and the withdrawal’s history', async () => {
    const walletId = (await api('POST', '/wallets', { name: 'treasury', chain: 'ethereum', network: 'devnet' })).body.id as number;
    const source = (await api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    const depositHash = await anvil.send(source, 3n * 10n ** 18n + 7n);
    await anvil.mine(2);
    const confirmed = await eventually(
      () => t.db('transfers').where({ tx_hash: depositHash }).first('status'),
      (r) => r?.status === 'confirmed',
    );
    expect(confirmed?.status).toBe('confirmed');

    const viewer = await onboardMember(con, t.db, { companyId: s.companyId, email: 'viewer@acme.test', role: 'viewer' });
    const page = await signIn(viewer);

    // Overview: the wallet by name, its balance shown to eight decimals, cut and marked, and exact to
    // the wei on hover; the chain followed to the node's head.
    const balances = page.getByTestId('balances').locator('tbody tr');
    await balances.first().waitFor();
    await expect(balances.first().locator('td')).toHaveText(['treasury', 'ethereum / devnet', 'ETH', '3…', '0', '0', '3…']);
    const confirmedCell = balances.first().locator('td').nth(3).locator('.amount');
    expect(await confirmedCell.getAttribute('title')).toBe('3.000000000000000007');
    // Copying the shown figure copies the exact one (a copy event as the browser sends it, on a selection of the figure).
    const copied = await page.evaluate(`(() => {
      const figure = document.querySelector('[data-testid=balances] tbody td:nth-child(4) .amount');
      getSelection().selectAllChildren(figure);
      const event = new ClipboardEvent('copy', { clipboardData: new DataTransfer(), bubbles: true, cancelable: true });
      figure.firstChild.dispatchEvent(event);
      return event.clipboardData.getData('text/plain');
    })()`);
    expect(copied).toBe('3.000000000000000007');
    // (Evaluated in the page, so written as page code: the tests compile without the DOM's types.)
    expect(await page.evaluate("getComputedStyle(document.querySelector('[data-testid=balances] tbody td:nth-child(4)')).textAlign")).toBe(
      'right',
    );
    // The chains table is fetched apart from the balances: wait for its row before reading it.
    const chainCells = page.getByTestId('chains').locator('tbody tr').first().locator('td');
    await expect(chainCells.nth(4)).toHaveText('ok');
    const chain = await chainCells.allTextContents();
    expect(chain[0]).toBe('ethereum / devnet');
    expect(chain[4]).toBe('ok');
    expect(chain.slice(1, 4)).toEqual([expect.stringMatching(/^\d+$/), expect.stringMatching(/^\d+$/), expect.stringMatching(/^\d+$/)]);
    mkdirSync(DOCS, { recursive: true });
    await page.screenshot({ path: join(DOCS, 'console-overview.png') });

    // A withdrawal through the API: prepared, sent, mined, confirmed by the indexer.
    const prepared = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: recipient,
      amount: '1.25',
      idempotencyKey: 'payout-1',
    });
    expect(prepared.status).toBe(201);
    expect((await api('POST', `/withdrawals/${prepared.body.id}/broadcast`)).body.status).toBe('broadcast');
    await anvil.mine(2);
    const done = await eventually(
      () => api('GET', `/withdrawals/${prepared.body.id}`),
      (r) => r.body.status === 'confirmed',
    );
    expect(done.body.status).toBe('confirmed');

    // Transactions: the deposit found by its hash, with its lifecycle.
    await page.getByRole('link', { name: 'Transactions', exact: true }).click();
    await page.getByTestId('transactions').waitFor();
    await page.getByLabel('Hash or address').fill(depositHash);
    await page.getByRole('button', { name: 'Search' }).click();
    const found = page.getByTestId('transactions').locator('tbody tr');
    // The unfiltered list had the withdrawal above the deposit: the search leaves one row.
    await found.nth(1).waitFor({ state: 'detached' });
    await expect(found).toHaveCount(1);
    const cells = await found.first().locator('td').allTextContents();
    expect(cells.slice(1, 4)).toEqual(['treasury', 'deposit', '3… ETH']);
    expect(await found.first().locator('.amount').getAttribute('title')).toBe('3.000000000000000007 ETH');
    expect(cells[6]).toMatch(/^detected → confirmed \(\d+ confirmations\)$/);
    await page.screenshot({ path: join(DOCS, 'console-transactions.png') });
    await found.first().locator('a').click();
    await page.getByTestId('lifecycle').locator('li').nth(1).waitFor();
    await expect(page.getByTestId('lifecycle').locator('li')).toHaveText([
      expect.stringMatching(/^detected on .* \(in block \d+\)$/),
      expect.stringMatching(/^confirmed on /),
    ]);
    await page.getByText(depositHash).waitFor();

    // Withdrawals: the one made through the API, then its history.
    await page.getByRole('link', { name: 'Withdrawals', exact: true }).click();
    const row = page.getByTestId('withdrawals').locator('tbody tr');
    await row.first().waitFor();
    const w = await row.first().locator('td').allTextContents();
    expect(w.slice(0, 6)).toEqual([`#${prepared.body.id}`, 'payout', 'confirmed', 'treasury', '1.25 ETH', '0x000000…00dEaD']);
    expect(w[6]).toMatch(/^0\.[0-9]+(…)? ETH$/);
    expect(w[8]).toMatch(/^API key #\d+$/);
    // Filtered by kind: the payout is no sweep.
    await page.getByLabel('Kind').selectOption('sweep');
    await expect(page.getByTestId('withdrawals-empty')).toHaveText('No withdrawals.');
    await page.getByLabel('Kind').selectOption('payout');
    await expect(row).toHaveCount(1);
    await page.screenshot({ path: join(DOCS, 'console-withdrawals.png') });
    await row.first().getByRole('link').click();
    const history = page.getByTestId('history').locator('li');
    await history.first().waitFor();
    const lines = await history.allTextContents();
    expect(lines.map((l) => l.split(' ')[0])).toEqual(['prepared', 'signed', 'broadcast', 'confirmed']);
    // The fee estimate is kept in wei; a person reads it in ETH.
    expect(lines[0]).toMatch(/feeEstimate 0\.[0-9]+ ETH/);
    await page.getByTestId('withdrawal-facts').getByText(done.body.txHash).waitFor();
  });

  it('adds up an asset held by several wallets, and fits every page in 1280 px', async () => {
    // A second ETH wallet beside the first test's treasury: the overview's total row adds both exactly.
    const walletId = (await api('POST', '/wallets', { name: 'operations', chain: 'ethereum', network: 'devnet' })).body.id as number;
    const address = (await api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    const hash = await anvil.send(address, 2n * 10n ** 18n + 5n * 10n ** 17n);
    await anvil.mine(2);
    await eventually(
      () => t.db('transfers').where({ tx_hash: hash }).first('status'),
      (r) => r?.status === 'confirmed',
    );
    const wallets = (await api('GET', '/wallets')).body.wallets as { id: number }[];
    const confirmed = await Promise.all(
      wallets.map(async (w) => {
        const b = (await api('GET', `/wallets/${w.id}/balances`)).body.balances as { asset: { symbol: string }; confirmed: string }[];
        return b.find((x) => x.asset.symbol === 'ETH')?.confirmed ?? '0';
      }),
    );
    const weiOf = (v: string) => {
      const [whole = '0', fraction = ''] = v.split('.');
      return BigInt(whole) * 10n ** 18n + BigInt(fraction.padEnd(18, '0'));
    };
    const totalWei = confirmed.reduce((sum, v) => sum + weiOf(v), 0n);

    const owner = await onboardMember(con, t.db, { companyId: s.companyId, email: 'owner2@acme.test', role: 'owner' });
    const page = await signIn(owner);
    const total = page.getByTestId('asset-totals').locator('tr').first();
    await expect(total.locator('th, td').first()).toHaveText('Total');
    const exact = await total.locator('td').nth(2).locator('.amount').getAttribute('title');
    expect(weiOf(exact as string)).toBe(totalWei);

    // Every page at 1280 px wide: nothing wider than the window (no horizontal scroll, no cut button).
    await page.setViewportSize({ width: 1280, height: 800 });
    const paths = [
      '/console/',
      '/console/requests',
      '/console/transactions',
      '/console/withdrawals',
      '/console/sweeps',
      '/console/webhooks',
      '/console/keys',
      '/console/policies',
      '/console/address-book',
      '/console/encryption-key',
      '/console/audit',
      '/console/members',
      '/console/passkeys',
    ];
    const overflowing: string[] = [];
    for (const path of paths) {
      await page.goto(`${con.url}${path}`);
      await page.locator('main h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      const widest = (await page.evaluate(
        "Math.max(document.documentElement.scrollWidth, ...Array.from(document.querySelectorAll('main *'), (e) => e.getBoundingClientRect().right))",
      )) as number;
      if (widest > 1280) overflowing.push(`${path}: ${Math.round(widest)} px`);
      await page.screenshot({ path: join(DOCS, `console-1280${path.replace(/\/$/, '').replaceAll('/', '-')}.png`) });
    }
    expect(overflowing).toEqual([]);
    // And wide: the same pages at 1920 px, for the screenshots under docs/ (WALLETD_SCREENSHOTS=1).
    await page.setViewportSize({ width: 1920, height: 1000 });
    for (const path of paths) {
      await page.goto(`${con.url}${path}`);
      await page.locator('main h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: join(DOCS, `console-1920${path.replace(/\/$/, '').replaceAll('/', '-')}.png`) });
    }
  }, 240_000);

  it('a quorum reached while the node is down says "approved, not yet prepared" and why; Prepare now prepares it once the node is back', async () => {
    const walletId = (await api('GET', '/wallets')).body.wallets[0].id as number;
    const proposed = await api('POST', '/withdrawal-requests', { walletId, asset: 'ETH', toAddress: recipient, amount: '0.5' });
    expect(proposed.status).toBe(201);
    const admin = await onboardMember(con, t.db, { companyId: s.companyId, email: 'admin@acme.test', role: 'admin' });
    const page = await signIn(admin);
    await page.goto(`${con.url}/console/requests/${proposed.body.id}`);
    nodeDown = true;
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    const outcome = page.getByTestId('vote-outcome');
    await outcome.waitFor();
    nodeDown = false;
    await expect(outcome).toHaveText('Your approval reached the quorum: the request is approved, its withdrawal not yet prepared.');
    await expect(page.getByTestId('not-prepared')).toHaveText(/^Approved, not yet prepared: .*(did not answer|failed)/);
    expect(await t.db('withdrawal_requests').where({ id: proposed.body.id }).first('status', 'withdrawal_id')).toEqual({
      status: 'approved',
      withdrawal_id: null,
    });

    await page.screenshot({ path: join(DOCS, 'console-request-not-prepared.png') });
    await page.getByRole('button', { name: 'Prepare now' }).click();
    await page.getByTestId('not-prepared').waitFor({ state: 'detached' });
    const [withdrawal] = await t.db('withdrawals').where({ request_id: proposed.body.id });
    expect(withdrawal).toMatchObject({ status: 'prepared' });
    await expect(outcome).toHaveText(`Prepared: withdrawal #${withdrawal.id}.`);
  });

  it('"Check now" on the overview compares the balances with the node at once and lists the drift it finds', async () => {
    const walletId = (await api('GET', '/wallets')).body.wallets[0].id as number;
    // ETH the node credits with no transaction walletd could index: a real discrepancy.
    const unindexed = (await api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    await anvil.rpc('anvil_setBalance', [unindexed, '0x9b6e64a8ec60000']);
    const viewer = await onboardMember(con, t.db, { companyId: s.companyId, email: 'checker@acme.test', role: 'viewer' });
    const page = await signIn(viewer);
    await page.getByRole('button', { name: 'Check now' }).click();
    const outcome = page.getByTestId('check-outcome');
    await outcome.waitFor();
    await expect(outcome).toHaveText(/^Compared \d+ addresses with the node: 1 drift\.$/);
    const drift = page.getByTestId('drifts').locator(':scope > li').first();
    await drift.waitFor();
    await expect(drift).toHaveText(
      `${unindexed}: the node holds 0.7 ETH more than walletd credits; nothing in the records explains it (a deposit not indexed, a payout made elsewhere?)`,
    );
    await expect(page.getByTestId('reconciliation')).toHaveText(/^ethereum \/ devnet: 1 drift: the node differs/);
    await page.screenshot({ path: join(DOCS, 'console-reconciliation.png') });
  });

  it('a reorg deeper than the threshold that takes back a confirmed deposit shows a banner on the overview', async () => {
    const walletId = (await api('POST', '/wallets', { name: 'reorged', chain: 'ethereum', network: 'devnet' })).body.id as number;
    const address = (await api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    const tx = await anvil.send(address, 10n ** 17n);
    await anvil.mine(2);
    await eventually(
      () => t.db('transfers').where({ tx_hash: tx }).first('status'),
      (r) => r?.status === 'confirmed',
    );
    // Its block and the two above it replaced by empty ones: deeper than the threshold (2).
    await anvil.rpc('anvil_reorg', [3, []]);
    await anvil.mine(1);
    const gone = await eventually(
      () => t.db('transfers').where({ tx_hash: tx }).first('status'),
      (r) => r?.status === 'rejected',
    );
    expect(gone?.status).toBe('rejected');
    const viewer = await onboardMember(con, t.db, { companyId: s.companyId, email: 'reorg-viewer@acme.test', role: 'viewer' });
    const page = await signIn(viewer);
    const banner = page.getByTestId('deep-reorg');
    await banner.waitFor();
    await expect(banner).toHaveText(
      /^Reorg deeper than the confirmation threshold on ethereum \/ devnet at .*confirmed deposits not mined again were retracted/,
    );
  });
});
