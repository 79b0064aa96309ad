import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { type ChainSettings, MasterKey } from '@walletd/core';
import { createDetectPool, type DetectPool, type Follower } from '@walletd/indexer';
import { addPolicy } from '@walletd/server';
import {
  type Anvil,
  type ConsoleServer,
  type Seeded,
  type TestApp,
  type TestDatabase,
  call,
  createTestDatabase,
  keyFor,
  onboardMember,
  seedCompany,
  startAnvil,
  startConsole,
  startTestApp,
  testFollower,
} from '@walletd/test-harness';
import { describeWithChromium, screenshotDir, signInInBrowser } from '../harness/chromium';

const DOCS = screenshotDir();

/**
 * The inbox as people use it: a key proposes a withdrawal over the API that a policy holds for two
 * sign-offs; the proposer cannot approve it in the console; two other members, each in their own
 * browser, approve with a TOTP step-up; the second approval reaches the quorum and the page shows
 * the prepared withdrawal (built against anvil).
 */
describeWithChromium('the withdrawal-requests inbox in a real browser', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  let app: TestApp;
  let con: ConsoleServer;
  let s: Seeded;
  let follower: Follower;
  let walletId: number;
  const browsers: BrowserContext[] = [];
  const hexKey = randomBytes(32).toString('hex');
  const recipient = '0x000000000000000000000000000000000000dEaD';
  const api = (method: string, path: string, body?: unknown, key = s.rootKey) => call(app.url, method, `/v1${path}`, { key, body });

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    pool = createDetectPool(1);
    const settings: ChainSettings = { chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, confirmations: 1, startBlock: 0 };
    app = await startTestApp(t.db, { chains: [settings] }, new MasterKey(Buffer.from(hexKey, 'hex')));
    con = await startConsole(t.db, { chains: [settings] }, new MasterKey(Buffer.from(hexKey, 'hex')));
    follower = testFollower(t.db, pool, settings);
    s = await seedCompany(t.db);
    walletId = (await api('POST', '/wallets', { name: 'treasury', chain: 'ethereum', network: 'devnet' })).body.id;
    const source = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    await anvil.send(source, 5n * 10n ** 18n);
    await follower.tick();

    // The policy that asks two people to sign off above 1 ETH (test/src/e2e/consolePolicies.test.ts adds one in its page).
    await addPolicy(t.db, {
      companyId: s.companyId,
      name: 'two sign-offs above 1 ETH',
      kind: 'approval_above',
      walletIds: null,
      assetKey: 'ethereum:devnet:eth',
      threshold: 10n ** 18n,
      approvals: 2,
    });
  });
  afterAll(async () => {
    for (const b of browsers) await b.close();
    await con?.close();
    await app?.close();
    await pool?.close();
    await anvil?.stop();
    await t?.drop();
  });

  type Member = Awaited<ReturnType<typeof onboardMember>>;
  /** A member signs in through the pages (password, then the authenticator code) in a browser of their own. */
  const signIn = (m: Member): Promise<Page> => signInInBrowser(con.url, m, browsers);

  it('two members approve a request in two browsers with step-up; the proposer cannot; the quorum prepares the withdrawal; Send with a step-up; confirmed on the page', async () => {
    const alice = await onboardMember(con, t.db, { companyId: s.companyId, email: 'alice@acme.test', role: 'admin' });
    const bob = await onboardMember(con, t.db, { companyId: s.companyId, email: 'bob@acme.test', role: 'admin' });
    const owner = await onboardMember(con, t.db, { companyId: s.companyId, email: `owner-${s.companyId}@example.com`, role: 'owner' });
    const proposer = await keyFor(t.db, s.companyId, { actions: ['withdrawal_requests:create'], createdBy: alice.memberId });
    const proposed = await api(
      'POST',
      '/withdrawal-requests',
      { walletId, asset: 'ETH', toAddress: recipient, amount: '2', note: 'supplier invoice 42' },
      proposer.key,
    );
    expect(proposed.body).toMatchObject({ status: 'pending', requiredApprovals: 2, proposedByMember: alice.memberId });
    const id = proposed.body.id as number;

    // Bob finds it in the inbox: amount, destination, proposer, votes against the quorum, the policy.
    const bobPage = await signIn(bob);
    await bobPage.getByRole('link', { name: 'Requests', exact: true }).click();
    const row = bobPage.getByTestId('inbox').locator('tbody tr');
    await row.first().waitFor();
    await expect(row).toHaveCount(1);
    const cells = await row.locator('td').allTextContents();
    const [policy] = (await t.db('spending_policies').where({ company_id: s.companyId }).select('id')) as { id: number }[];
    expect(cells).toEqual([`#${id}`, 'treasury', '2 ETH', '0x000000…00dEaD', 'alice@acme.test', '0 of 2', `#${policy!.id}`]);
    mkdirSync(DOCS, { recursive: true });
    await bobPage.screenshot({ path: join(DOCS, 'console-requests.png') });

    // The proposer sees it too, and is told in words that she may not approve her own request.
    const alicePage = await signIn(alice);
    await alicePage.goto(`${con.url}/console/requests/${id}`);
    await alicePage.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect(alicePage.getByRole('alert')).toHaveText('You proposed this request, so you cannot approve it: another member has to.');

    // Bob's sign-in code is six minutes old by the time he votes: the page asks for a fresh one.
    con.clock.now += 6 * 60_000;
    await row.locator('a').click();
    await bobPage.getByText('supplier invoice 42').waitFor();
    // What he weighs (issue 47 §4): the wallet's funds, the destination's history, the policy in words.
    await expect(bobPage.getByTestId('fact-available')).toHaveText('5 ETH available');
    await expect(bobPage.getByTestId('fact-destinations')).toHaveText(`${recipient}: never paid before, not in the address book`);
    await expect(bobPage.getByTestId('fact-policies')).toHaveText(
      `#${policy!.id}: Withdrawals of 1 ETH or more from any wallet need 2 approvals`,
    );
    await bobPage.getByRole('button', { name: 'Approve', exact: true }).click();
    await bobPage.getByLabel('Authenticator code').fill('000000');
    await bobPage.getByRole('button', { name: 'Confirm and approve' }).click();
    await expect(bobPage.getByRole('alert')).toHaveText(/incorrect or was already used/);
    await bobPage.getByLabel('Authenticator code').fill(bob.code());
    await bobPage.getByRole('button', { name: 'Confirm and approve' }).click();
    await expect(bobPage.getByTestId('vote-outcome')).toHaveText(
      'Your approval is recorded: 1 of 2 approvals so far, waiting for the others.',
    );
    await expect(bobPage.getByTestId('approvals')).toHaveText('1 of 2');

    // The owner's sign-in is the step-up: the deciding vote goes straight through and prepares the withdrawal.
    const ownerPage = await signIn(owner);
    await ownerPage.getByRole('link', { name: 'Requests', exact: true }).click();
    await ownerPage
      .getByTestId('inbox')
      .getByRole('link', { name: `#${id}` })
      .click();
    await expect(ownerPage.getByTestId('approvals')).toHaveText('1 of 2');
    await ownerPage.getByRole('button', { name: 'Approve', exact: true }).click();
    const outcome = ownerPage.getByTestId('vote-outcome');
    await outcome.waitFor();
    const [withdrawal] = await t.db('withdrawals').where({ request_id: id });
    expect(withdrawal).toMatchObject({ status: 'prepared' });
    await expect(outcome).toHaveText(
      `Approved: quorum reached, withdrawal #${withdrawal.id} prepared; it goes out when someone presses Send.`,
    );
    await expect(ownerPage.getByTestId('approvals')).toHaveText('2 of 2');
    await expect(ownerPage.getByTestId('on-approval')).toHaveText('waits for an owner or admin to press Send');
    await ownerPage.screenshot({ path: join(DOCS, 'console-request-approved.png') });
    expect((await api('GET', `/withdrawals/${withdrawal.id}`)).body).toMatchObject({ status: 'prepared', amount: '2', requestId: id });

    // Send (issue 42 §6): the owner's step-up has gone stale, so the page asks for a code, then the
    // withdrawal is broadcast and the request page follows it to confirmed on its own.
    con.clock.now += 6 * 60_000;
    await ownerPage.getByRole('button', { name: 'Send', exact: true }).click();
    await ownerPage.getByLabel('Authenticator code').fill(owner.code());
    await ownerPage.getByRole('button', { name: 'Confirm', exact: true }).click();
    await expect(ownerPage.getByTestId('send-outcome')).toHaveText(`Sent: withdrawal #${withdrawal.id} is broadcast.`);
    await anvil.mine(1);
    await follower.tick();
    await ownerPage.getByTestId('withdrawal-state').locator('.status.confirmed').waitFor();
    await expect(ownerPage.getByTestId('withdrawal-state')).toHaveText(
      new RegExp(`^#${withdrawal.id} confirmed · [0-9]+ confirmations? 0x[0-9a-f]{64}$`),
    );
    await ownerPage.screenshot({ path: join(DOCS, 'console-request-sent.png') });
    expect((await api('GET', `/withdrawals/${withdrawal.id}`)).body).toMatchObject({ status: 'confirmed', requestId: id });

    // Nothing is left waiting.
    await ownerPage.getByRole('link', { name: 'Requests', exact: true }).click();
    await ownerPage.getByTestId('inbox-empty').waitFor();

    // The next request to the same place: paid once before, and now in the address book.
    await t.db('address_book_entries').insert({
      company_id: s.companyId,
      chain: 'ethereum',
      network: 'devnet',
      name: 'Supplier',
      address: recipient,
      match_key: recipient.toLowerCase(),
      usable_from: new Date(),
    });
    const again = await api('POST', '/withdrawal-requests', { walletId, asset: 'ETH', toAddress: recipient, amount: '1.5' }, proposer.key);
    await ownerPage.goto(`${con.url}/console/requests/${again.body.id}`);
    await expect(ownerPage.getByTestId('fact-destinations')).toHaveText(
      `${recipient}: paid 1 time before, in the address book as “Supplier”`,
    );
    const balances = (await api('GET', `/wallets/${walletId}/balances`)).body;
    const eth = balances.balances.find((b: { asset: { symbol: string } }) => b.asset.symbol === 'ETH');
    await expect(ownerPage.getByTestId('fact-available')).toHaveText(`${eth.available} ETH available`);
  });
});
