import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { addPolicy, inviteMember, otpauthQrSvg } from '@walletd/server';
import {
  type ConsoleServer,
  type Seeded,
  type TestApp,
  type TestDatabase,
  type FundedTreasury,
  call,
  keyFor,
  onboardMember,
  startFundedTreasury,
} from '@walletd/test-harness';
import { describeWithChromium, launchChromium, screenshotDir, signInInBrowser } from '../harness/chromium';

const DOCS = screenshotDir();
const PASSWORD = 'correct horse battery staple';

/** Chromium's virtual authenticator (DevTools protocol): a platform passkey that verifies its user. */
async function virtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  return { cdp, authenticatorId };
}

/**
 * Passkeys as an approver meets them, in Chromium with a virtual authenticator: enroll one on the
 * Passkeys page, sign out, sign in with password + passkey, and approve a withdrawal request with
 * a passkey step-up. And the TOTP enrollment page's QR code of the otpauth:// URI.
 */
describeWithChromium('passkeys and the TOTP QR code in a real browser', () => {
  let t: TestDatabase;
  let app: TestApp;
  let con: ConsoleServer;
  let s: Seeded;
  let walletId: number;
  const browsers: BrowserContext[] = [];
  let funded: FundedTreasury | undefined;
  const api = (method: string, path: string, body?: unknown, key = s.rootKey) => call(app.url, method, `/v1${path}`, { key, body });

  beforeAll(async () => {
    funded = await startFundedTreasury();
    ({ t, app, con, s, walletId } = funded);
    await addPolicy(t.db, {
      companyId: s.companyId,
      name: 'two sign-offs above 1 ETH',
      kind: 'approval_above',
      walletIds: null,
      assetKey: 'ethereum:devnet:eth',
      threshold: 10n ** 18n,
      approvals: 2,
    });
    mkdirSync(DOCS, { recursive: true });
  });
  afterAll(async () => {
    for (const b of browsers) await b.close();
    await funded?.close();
  });

  it('enrolls a passkey, signs in with it after signing out, and approves a request with a passkey step-up', async () => {
    const alice = await onboardMember(con, t.db, { companyId: s.companyId, email: 'alice@acme.test', role: 'admin' });
    const bob = await onboardMember(con, t.db, { companyId: s.companyId, email: 'bob@acme.test', role: 'admin' });
    const proposer = await keyFor(t.db, s.companyId, { actions: ['withdrawal_requests:create'], createdBy: bob.memberId });
    const proposed = await api(
      'POST',
      '/withdrawal-requests',
      { walletId, asset: 'ETH', toAddress: '0x000000000000000000000000000000000000dEaD', amount: '2', note: 'supplier invoice 43' },
      proposer.key,
    );
    expect(proposed.body).toMatchObject({ status: 'pending', requiredApprovals: 2 });
    const id = proposed.body.id as number;

    // Alice signs in with her TOTP code at the console's public URL (passkeys are bound to its host).
    const page = await signInInBrowser(con.publicUrl, alice, browsers);
    const { cdp, authenticatorId } = await virtualAuthenticator(page);
    await page.getByRole('link', { name: 'Passkeys', exact: true }).click();
    await page.getByTestId('no-passkeys').waitFor();
    await page.getByLabel('Passkey name').fill('work laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await expect(page.getByRole('status')).toHaveText('Passkey "work laptop" added: use it to sign in and to confirm actions.');
    await expect(page.getByTestId('passkeys').locator('tbody td').first()).toHaveText('work laptop');
    await page.screenshot({ path: join(DOCS, 'console-passkeys.png') });
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    const [stored] = await t.db('member_passkeys').where({ member_id: alice.memberId });
    expect(credentials.map((c) => Buffer.from(c.credentialId, 'base64').toString('base64url'))).toEqual([stored.credential_id]);
    expect(credentials[0]!.rpId).toBe('localhost');

    // Sign out, sign in with password + passkey: no code typed.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email').fill(alice.email);
    await page.getByLabel('Password').fill(alice.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await expect(page.getByTestId('member')).toContainText('alice@acme.test');
    const signIns = await t
      .db('audit_log')
      .where({ actor_id: String(alice.memberId), action: 'member.signed_in' })
      .orderBy('id');
    expect(signIns.at(-1)!.details).toEqual({ secondFactor: 'passkey' });

    // Six minutes later she votes: the page asks for a step-up and offers the passkey.
    con.clock.now += 6 * 60_000;
    await page.goto(`${con.publicUrl}/console/requests/${id}`);
    await page.getByText('supplier invoice 43').waitFor();
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    const usePasskey = page.getByRole('button', { name: 'Use a passkey and approve' });
    await usePasskey.waitFor();
    await page.screenshot({ path: join(DOCS, 'console-passkey-step-up.png') });
    await usePasskey.click();
    await expect(page.getByTestId('vote-outcome')).toHaveText(
      'Your approval is recorded: 1 of 2 approvals so far, waiting for the others.',
    );
    await expect(page.getByTestId('approvals')).toHaveText('1 of 2');
    const [vote] = await t.db('withdrawal_approvals').where({ request_id: id });
    expect(vote).toMatchObject({ member_id: alice.memberId });
    const steppedUp = await t.db('audit_log').where({ actor_id: String(alice.memberId), action: 'member.stepped_up' });
    expect(steppedUp.map((r) => r.details)).toEqual([{ factor: 'passkey', passkeyId: stored.id }]);
    // The authenticator signed twice (sign-in, step-up): the stored counter followed it.
    const [after] = await t.db('member_passkeys').where({ id: stored.id });
    const [credential] = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
    expect(Number(after.counter)).toBe(credential!.signCount);
  });

  it('makes a passkey the first factor instead of the app, and refuses to remove it as the last one after a passkey step-up', async () => {
    const inv = await inviteMember(t.db, { companyId: s.companyId, email: 'dave@acme.test', role: 'admin' }, con.clock.now, 86_400_000);
    const browser = await launchChromium();
    browsers.push(browser);
    const page = await browser.newPage();
    await virtualAuthenticator(page);
    await page.goto(`${con.publicUrl}/console/links/${inv.token}`);
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat it').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByLabel('Email').fill('dave@acme.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Use a passkey instead' }).click();
    await page.getByTestId('member').waitFor();
    await page.getByRole('link', { name: 'Passkeys', exact: true }).click();
    await expect(page.getByTestId('passkeys').locator('tbody td').first()).toHaveText('first passkey');
    // Removing needs a step-up: the password sign-in was none, so the page asks, and offers the passkey.
    await page.getByRole('button', { name: 'Remove' }).click();
    const usePasskey = page.getByRole('button', { name: 'Use a passkey' });
    await usePasskey.waitFor();
    await page.screenshot({ path: join(DOCS, 'console-passkey-remove-step-up.png') });
    await usePasskey.click();
    await expect(page.getByRole('alert')).toHaveText(
      'This is your last second factor: enroll another passkey or an authenticator app first',
    );
    await page.screenshot({ path: join(DOCS, 'console-passkey-last-factor.png') });
    expect(await t.db('member_passkeys').where({ member_id: inv.memberId }).pluck('name')).toEqual(['first passkey']);
    const actions = await t
      .db('audit_log')
      .where({ actor_id: String(inv.memberId) })
      .orderBy('id')
      .pluck('action');
    expect(actions.filter((a: string) => a.includes('passkey') || a === 'member.stepped_up')).toEqual([
      'member.passkey_enrolled',
      'member.stepped_up',
    ]);
  });

  it('shows the TOTP key as a QR code of the otpauth:// URI beside the text secret', async () => {
    const inv = await inviteMember(t.db, { companyId: s.companyId, email: 'carol@acme.test', role: 'admin' }, con.clock.now, 86_400_000);
    const browser = await launchChromium();
    browsers.push(browser);
    const page = await browser.newPage();
    await page.goto(`${con.publicUrl}/console/links/${inv.token}`);
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat it').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByLabel('Email').fill('carol@acme.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const qr = page.getByTestId('totp-qr');
    await qr.locator('svg').waitFor();
    const secret = await page.getByTestId('totp-secret').textContent();
    const uri = (await page.locator('code.uri').textContent()) as string;
    expect(uri).toBe(`otpauth://totp/walletd:carol%40acme.test?issuer=walletd&secret=${secret}&algorithm=SHA1&digits=6&period=30`);
    await expect(qr).toHaveAttribute('data-otpauth', uri);
    // The image is the URI the page shows, module for module: qrcode's own rendering of it.
    const expected = (await otpauthQrSvg(uri)).trim();
    const shown = (await page.evaluate(
      'new XMLSerializer().serializeToString(document.querySelector("[data-testid=totp-qr] svg"))',
    )) as string;
    expect(normalizeSvg(shown)).toBe(normalizeSvg(expected));
    const box = await qr.boundingBox();
    expect([box?.width, box?.height]).toEqual([200, 200]);
    await page.screenshot({ path: join(DOCS, 'console-totp-qr.png') });
  });
});

/** Attribute order and the XML namespace declaration aside, two serialisations of one SVG. */
const normalizeSvg = (svg: string) =>
  svg.replace(/ xmlns="[^"]*"/g, '').replace(
    /<(\w+)([^>]*?)(\/?)>/g,
    (_m, tag: string, attrs: string, close: string) =>
      `<${tag}${attrs
        .trim()
        .split(/\s+(?=[\w-]+=)/)
        .filter(Boolean)
        .sort()
        .map((a) => ` ${a}`)
        .join('')}${close}>`,
  );
