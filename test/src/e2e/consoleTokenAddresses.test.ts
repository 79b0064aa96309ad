import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import {
  type FundedTreasury,
  describeWithSoftHsm,
  type KmsEmulator,
  newSoftHsmToken,
  onboardMember,
  seedCompany,
  softHsmKeySettings,
  startFundedTreasury,
  startKmsEmulator,
} from '@walletd/test-harness';
import { describeWithChromium, screenshotDir, signInInBrowser } from '../harness/chromium';

const DOCS = screenshotDir();
const DEAD = '0x000000000000000000000000000000000000dEaD';

/**
 * Issue 45 §3 in the console: a treasury wallet on anvil with one derived address and one whose
 * key pair was generated in a SoftHSM2 token (master key settings in the token). From the
 * overview, the wallet's addresses page lists both and marks exactly the token-held one (the mark's
 * tooltip and the legend say what it means); a withdrawal signed in the token marks its source on
 * its page, one from the derived address does not. A member of another company sees neither, in
 * the page or through its API; the API's pages follow the cursor.
 */
describeWithSoftHsm('token-held addresses in the console', () => {
  describeWithChromium('in a real browser', () => {
    let f: FundedTreasury;
    let kms: KmsEmulator;
    const browsers: BrowserContext[] = [];

    beforeAll(async () => {
      const token = newSoftHsmToken(`console-${process.pid}`);
      // An emulator of the KMS wire protocol (kmsEmulator.ts), for the KMS-held address's mark; the
      // SDK's default chain reads these (jest gives this file its own copy of process.env).
      kms = await startKmsEmulator();
      process.env.AWS_ACCESS_KEY_ID = kms.accessKeyId;
      process.env.AWS_SECRET_ACCESS_KEY = kms.secretAccessKey;
      f = await startFundedTreasury({
        masterKey: { pkcs11: softHsmKeySettings(token.label) },
        signers: { awsKms: { region: 'eu-west-1', endpoint: kms.url } },
      });
    }, 180_000);
    afterAll(async () => {
      for (const b of browsers) await b.close();
      await f?.close();
      await kms?.stop();
    });

    const payout = async (key: string, fromAddress: string) => {
      const prepared = await f.api('POST', `/wallets/${f.walletId}/withdrawals`, {
        asset: 'ETH',
        toAddress: DEAD,
        amount: '0.1',
        fromAddress,
        idempotencyKey: key,
      });
      expect(prepared.status).toBe(201);
      const sent = await f.api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
      expect(sent.body.status).toBe('broadcast');
      return prepared.body.id as number;
    };

    it('lists both addresses and marks only the token-held one, there and on its withdrawal; another company sees neither', async () => {
      const held = await f.api('POST', `/wallets/${f.walletId}/addresses`, { label: 'hot', keyHeldIn: 'token' });
      expect(held.status).toBe(201);
      expect(held.body.keyHeldIn).toBe('token');
      await f.anvil.send(held.body.address, 10n ** 18n);
      await f.follower.tick();
      const fromToken = await payout('from-token', held.body.address);
      const fromDerived = await payout('from-derived', f.source);

      const email = `owner-${f.s.companyId}@example.com`;
      const owner = await onboardMember(f.con, f.t.db, { companyId: f.s.companyId, email, role: 'owner' });
      const page = await signInInBrowser(f.con.url, owner, browsers);
      await page.getByTestId('balances').getByRole('link', { name: 'treasury' }).click();
      await page.getByRole('heading', { name: 'Addresses of treasury' }).waitFor();
      const rows = page.getByTestId('addresses').locator('tbody tr');
      await expect(rows).toHaveCount(2);
      const derivedRow = rows.filter({ hasText: f.source });
      const heldRow = rows.filter({ hasText: held.body.address });
      await expect(heldRow).toContainText('hot');
      await expect(heldRow.getByTestId('token-key')).toHaveText('key in the token');
      expect(await heldRow.getByTestId('token-key').getAttribute('title')).toContain('generated inside the PKCS#11 token');
      await expect(derivedRow.getByTestId('token-key')).toHaveCount(0);
      await expect(derivedRow).toContainText(`#0 m/44'/60'/0'/0/0`);
      // Exactly one mark in the table; the legend explains it.
      await expect(page.getByTestId('addresses').getByTestId('token-key')).toHaveCount(1);
      await expect(page.getByTestId('key-legend')).toContainText('never leaves it');
      mkdirSync(DOCS, { recursive: true });
      await page.screenshot({ path: join(DOCS, 'console-token-addresses.png'), fullPage: true });
      // Like every page (consoleOverview.test): nothing wider than a 1280 px window.
      await page.setViewportSize({ width: 1280, height: 800 });
      const widest = (await page.evaluate(
        "Math.max(document.documentElement.scrollWidth, ...Array.from(document.querySelectorAll('main *'), (e) => e.getBoundingClientRect().right))",
      )) as number;
      expect(widest).toBeLessThanOrEqual(1280);

      await page.goto(`${f.con.url}/console/withdrawals/${fromToken}`);
      const facts = page.getByTestId('withdrawal-facts');
      await facts.filter({ hasText: held.body.address }).waitFor();
      await expect(facts.getByTestId('token-key')).toHaveCount(1);
      await page.goto(`${f.con.url}/console/withdrawals/${fromDerived}`);
      await facts.filter({ hasText: f.source }).waitFor();
      await expect(facts.getByTestId('token-key')).toHaveCount(0);

      // The page's API, paged one by one: oldest first, the token-held one marked.
      const first = await owner.b.call('GET', `/console/api/wallets/${f.walletId}/addresses?limit=1`);
      expect(first.status).toBe(200);
      expect(first.body.addresses).toEqual([expect.objectContaining({ address: f.source, kind: 'deposit', index: 0 })]);
      expect(first.body.addresses[0].keyHeldIn).toBeUndefined();
      const second = await owner.b.call('GET', `/console/api/wallets/${f.walletId}/addresses?limit=1&after=${first.body.next}`);
      expect(second.body.addresses).toEqual([
        expect.objectContaining({ address: held.body.address, label: 'hot', keyHeldIn: 'token', path: expect.stringMatching(/^pkcs11:/) }),
      ]);
      const third = await owner.b.call('GET', `/console/api/wallets/${f.walletId}/addresses?limit=1&after=${second.body.next}`);
      expect(third.body).toMatchObject({ addresses: [], next: null });
      // A caller's mistake is the spec's 400, in words.
      for (const bad of ['limit=0', 'limit=201', 'after=x'])
        expect(await owner.b.call('GET', `/console/api/wallets/${f.walletId}/addresses?${bad}`)).toMatchObject({
          status: 400,
          body: { code: 'validation_failed' },
        });

      // Another company's owner: the wallet is not theirs, as if it did not exist.
      const other = await seedCompany(f.t.db, 'paid', 'Other');
      const stranger = await onboardMember(f.con, f.t.db, { companyId: other.companyId, email: 'stranger@example.com', role: 'owner' });
      const refused = await stranger.b.call('GET', `/console/api/wallets/${f.walletId}/addresses`);
      expect(refused.status).toBe(404);
      expect(JSON.stringify(refused.body)).not.toContain(held.body.address.slice(2, 12));
      expect((await stranger.b.call('GET', `/console/api/withdrawals/${fromToken}`)).status).toBe(404);
      const strangerPage = await signInInBrowser(f.con.url, stranger, browsers);
      await strangerPage.goto(`${f.con.url}/console/wallets/${f.walletId}/addresses`);
      await strangerPage.getByRole('alert').filter({ hasText: 'Wallet not found' }).waitFor();
      await expect(strangerPage.getByTestId('addresses')).toHaveCount(0);
      expect(await strangerPage.content()).not.toContain(held.body.address);
      expect(await strangerPage.content()).not.toContain(f.source);
    });

    it('marks a KMS-held address as such, there and on its withdrawal, and never as token-held', async () => {
      const made = await f.api('POST', `/wallets/${f.walletId}/addresses`, {
        label: 'kms hot',
        keyHeldIn: 'kms',
        kmsKeyId: kms.createKey('ECC_SECG_P256K1'),
      });
      expect(made.status).toBe(201);
      await f.anvil.send(made.body.address, 10n ** 18n);
      await f.follower.tick();
      const fromKms = await payout('from-kms', made.body.address);

      const owner = await onboardMember(f.con, f.t.db, { companyId: f.s.companyId, email: 'kms-owner@example.com', role: 'owner' });
      const page = await signInInBrowser(f.con.url, owner, browsers);
      await page.goto(`${f.con.url}/console/wallets/${f.walletId}/addresses`);
      const row = page.getByTestId('addresses').locator('tbody tr').filter({ hasText: made.body.address });
      await expect(row.getByTestId('kms-key')).toHaveText('key in AWS KMS');
      expect(await row.getByTestId('kms-key').getAttribute('title')).toContain('never leaves KMS');
      await expect(row.getByTestId('token-key')).toHaveCount(0);
      await expect(page.getByTestId('addresses').getByTestId('kms-key')).toHaveCount(1);
      await expect(page.getByTestId('key-legend')).toContainText('AWS KMS key');

      await page.goto(`${f.con.url}/console/withdrawals/${fromKms}`);
      const facts = page.getByTestId('withdrawal-facts');
      await facts.filter({ hasText: made.body.address }).waitFor();
      await expect(facts.getByTestId('kms-key')).toHaveCount(1);
      await expect(facts.getByTestId('token-key')).toHaveCount(0);
      const listed = await owner.b.call('GET', `/console/api/wallets/${f.walletId}/addresses?limit=200`);
      expect(listed.body.addresses.find((a: { address: string }) => a.address === made.body.address)).toMatchObject({
        keyHeldIn: 'kms',
        path: expect.stringMatching(/^awskms:/),
      });
    });
  });
});
