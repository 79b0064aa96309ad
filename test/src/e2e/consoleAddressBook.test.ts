import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { type ConsoleServer, type TestDatabase, createTestDatabase, onboardMember, seedCompany, startConsole } from '@walletd/test-harness';
import { describeWithChromium, screenshotDir, signInInBrowser } from '../harness/chromium';

const DOCS = screenshotDir();

/**
 * The address book page (issue 42 §7) in Chromium: an admin adds an address (a stale step-up asks
 * for a code), sees it cooling off, checksummed; the owner asks to end the cooling-off early and
 * cannot approve that alone; the admin approves it in their own browser and the entry can receive.
 */
describeWithChromium('the address book in a real browser', () => {
  let t: TestDatabase;
  let con: ConsoleServer;
  const browsers: BrowserContext[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    con = await startConsole(t.db);
  });
  afterAll(async () => {
    for (const b of browsers) await b.close();
    await con?.close();
    await t?.drop();
  });

  it('add (step-up) → cooling off → an owner asks → a second member approves → can receive', async () => {
    const s = await seedCompany(t.db);
    const owner = await onboardMember(con, t.db, { companyId: s.companyId, email: `owner-${s.companyId}@example.com`, role: 'owner' });
    const alice = await onboardMember(con, t.db, { companyId: s.companyId, email: 'alice@acme.test', role: 'admin' });

    const alicePage = await signInInBrowser(con.url, alice, browsers);
    await alicePage.getByRole('link', { name: 'Address book', exact: true }).click();
    await alicePage.getByTestId('address-book-empty').waitFor();
    con.clock.now += 6 * 60_000;
    await alicePage.getByLabel('Name').fill('Supplier GmbH');
    await alicePage.getByLabel('Address').fill('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed');
    await alicePage.getByLabel('Network').fill('devnet');
    await alicePage.getByRole('button', { name: 'Add', exact: true }).click();
    await alicePage.getByLabel('Authenticator code').fill(alice.code());
    await alicePage.getByRole('button', { name: 'Confirm', exact: true }).click();
    await expect(alicePage.getByTestId('address-book-notice')).toHaveText(
      /^Added "Supplier GmbH" \(0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed\): it can receive from /,
    );
    const row = alicePage.getByTestId('address-book').locator('tbody tr');
    await expect(row.locator('td').nth(4)).toHaveText(/^cooling offuntil /);
    mkdirSync(DOCS, { recursive: true });
    await alicePage.screenshot({ path: join(DOCS, 'console-address-book-cooling.png') });

    // The owner asks (their sign-in is the step-up); they are offered no approval of their own request.
    const ownerPage = await signInInBrowser(con.url, owner, browsers);
    await ownerPage.goto(`${con.url}/console/address-book`);
    await ownerPage.getByRole('button', { name: 'Ask to end cooling-off' }).click();
    await expect(ownerPage.getByTestId('address-book-notice')).toHaveText('Done: ask to end the cooling-off of "Supplier GmbH".');
    await expect(ownerPage.getByRole('button', { name: 'Approve ending cooling-off' })).toHaveCount(0);

    // The admin approves in their own browser (a fresh code: the last one is minutes old).
    con.clock.now += 6 * 60_000;
    await alicePage.reload();
    await alicePage.getByRole('button', { name: 'Approve ending cooling-off' }).click();
    await alicePage.getByLabel('Authenticator code').fill(alice.code());
    await alicePage.getByRole('button', { name: 'Confirm', exact: true }).click();
    await alicePage.getByTestId('address-book').locator('.status.approved').waitFor();
    await expect(row.locator('td').nth(4)).toHaveText('usablecooling-off ended early by two members');
    await alicePage.screenshot({ path: join(DOCS, 'console-address-book.png') });
    const audited = await t.db('audit_log').where({ company_id: s.companyId, target_type: 'address_book_entry' }).orderBy('id');
    expect(audited.map((a) => [a.action, a.actor_id])).toEqual([
      ['address_book.added', String(alice.memberId)],
      ['address_book.shorten_requested', String(owner.memberId)],
      ['address_book.shortened', String(alice.memberId)],
    ]);
  });
});
