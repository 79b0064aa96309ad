import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';
import { eventually, freePort, runWalletdAsync, spawnWalletd, type WalletdProcess } from '@walletd/test-harness';
import { describeWithChromium, launchChromium, screenshotDir } from '../harness/chromium';

const DOCS = screenshotDir();
const STEP_MS = 30_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A member's authenticator app against the real clock (this walletd is a separate process: its
 * clock cannot be moved as startConsole's can). The server takes a 30 s step once and never an
 * older one, and accepts one step either side of its own: each code is from the current step, or
 * the next one when the current was already given, and only past that does it wait for time to
 * move on. Each member has their own, so two people's codes never collide.
 */
function authenticator(secret: string) {
  let last = -1;
  return async (): Promise<string> => {
    const step = Math.max(Math.floor(Date.now() / STEP_MS), last + 1);
    while (step > Math.floor(Date.now() / STEP_MS) + 1) await sleep(1_000);
    last = step;
    return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: step * STEP_MS });
  };
}
type Code = ReturnType<typeof authenticator>;

/**
 * The "Done means", on exactly what `npm start` runs (`walletd serve`, no config: the
 * embedded PostgreSQL and the EVM devnet): the owner opens the printed link, sets a password,
 * enrolls TOTP and signs in; invites Ada (admin) and sets a policy holding withdrawals for two
 * approvals; a withdrawal request proposed over the API is approved by the owner and Ada, each in
 * their own browser with step-up; it is prepared, signed and broadcast through the API and
 * confirmed on the devnet; the audit log page shows every step.
 */
describeWithChromium('the newcomer story on `npm start`, in real browsers', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'walletd-newcomer-'));
  let env: Record<string, string>;
  let walletd: WalletdProcess;
  const browsers: BrowserContext[] = [];

  beforeAll(async () => {
    env = {
      WALLETD_DATA_DIR: dataDir,
      WALLETD_EMBEDDED_PG_PORT: String(await freePort()),
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      DATABASE_URL: '',
      WALLETD_MASTER_KEY: '',
      WALLETD_DEVNET_PORT: String(await freePort()),
      WALLETD_CONSOLE_PORT: String(await freePort()),
    };
    walletd = spawnWalletd(['serve'], env);
    await walletd.waitFor(/API listening/, 120_000);
    await walletd.waitFor(/console listening/);
  }, 180_000);
  afterAll(async () => {
    for (const b of browsers) await b.close();
    // SIGINT as Ctrl-C: walletd stops its PostgreSQL and anvil with it.
    if (walletd && walletd.child.exitCode === null) {
      walletd.child.kill('SIGINT');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([walletd.exited, new Promise((r) => (timer = setTimeout(r, 30_000)))]);
      clearTimeout(timer);
      if (walletd.child.exitCode === null) walletd.child.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  const newPage = async (): Promise<Page> => {
    const browser = await launchChromium();
    browsers.push(browser);
    return browser.newPage();
  };
  const nav = (page: Page, name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true }).click();

  /** The one-time link's page: a password, then the sign-in page says to sign in. */
  const setPassword = async (page: Page, link: string, password: string) => {
    await page.goto(link);
    await page.getByLabel('New password').fill(password);
    await page.getByLabel('Repeat it').fill(password);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Password set. Sign in to continue.').waitFor();
  };
  /** The enrollment page: the secret shown as text goes into the "app", whose first code confirms it. */
  const enroll = async (page: Page): Promise<Code> => {
    const code = authenticator((await page.getByTestId('totp-secret').textContent())!.trim());
    await page.getByLabel('Code from the app').fill(await code());
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByTestId('recovery-codes').waitFor();
    await page.getByRole('button', { name: 'I have stored them' }).click();
    await page.getByTestId('member').waitFor();
    return code;
  };
  const signIn = async (page: Page, email: string, password: string, code: Code) => {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Authenticator code (or a recovery code)').fill(await code());
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    await page.getByTestId('member').waitFor();
  };
  /**
   * Does something that needs a step-up: the page acts at once and asks for a fresh code only when
   * the server answers step_up_required (a code given within 5 minutes, the sign-in's included,
   * counts). Against the real clock either can happen, so the member answers if asked.
   */
  const withStepUp = async (page: Page, act: () => Promise<void>, confirm: string, done: Locator, code: Code) => {
    await act();
    const field = page.getByLabel('Authenticator code', { exact: true });
    await done.or(field).first().waitFor();
    if (await field.isVisible()) {
      await field.fill(await code());
      await page.getByRole('button', { name: confirm, exact: true }).click();
    }
    await done.waitFor();
  };
  /**
   * The owner's Members page: invite with a role. The devnet mails the link to the invitee (its
   * local catch-all inbox, read as docs/guide/console.md says: `walletd dev inbox`); the owner never sees it.
   */
  const invite = async (page: Page, email: string, role: string, code: Code): Promise<string> => {
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Role', { exact: true }).selectOption(role);
    const mailed = page.getByTestId('one-time-link');
    await withStepUp(page, () => page.getByRole('button', { name: 'Invite', exact: true }).click(), 'Confirm', mailed, code);
    await expect(mailed).toContainText(`mailed to ${email}`);
    await page.getByRole('button', { name: 'Done' }).click();
    const inbox = await runWalletdAsync(['dev', 'inbox', '--last'], env);
    expect(inbox.json).toMatchObject({ to: [email] });
    return (inbox.json.text as string).match(/http:\/\/\S+\/console\/links\/[\w-]+/)?.[0] as string;
  };

  it('npm start → owner link → password + TOTP → invite → policy → request approved by two people → paid out on the devnet', async () => {
    // What a newcomer reads on the terminal.
    const [, apiKey] = (await walletd.waitFor(/API key \(shown once, store it now\): (svc_live_\w+)/)) as string[];
    const [ownerLink] = walletd.stdout().match(/http:\/\/localhost:\d+\/console\/links\/[\w-]+/) as RegExpMatchArray;
    expect(ownerLink).toMatch(new RegExp(`^http://localhost:${env.WALLETD_CONSOLE_PORT}/console/links/`));
    const consoleUrl = `http://localhost:${env.WALLETD_CONSOLE_PORT}`;

    // The owner: the printed link, a password, the authenticator the console insists on, a sign-in with a code.
    const ownerPassword = 'the owner keeps a long passphrase';
    const owner = await newPage();
    await setPassword(owner, ownerLink as string, ownerPassword);
    await owner.getByLabel('Email').fill('owner@localhost');
    await owner.getByLabel('Password').fill(ownerPassword);
    await owner.getByRole('button', { name: 'Sign in' }).click();
    const ownerCode = await enroll(owner);
    await owner.getByRole('button', { name: 'Sign out' }).click();
    await signIn(owner, 'owner@localhost', ownerPassword, ownerCode);
    await expect(owner.getByTestId('member')).toHaveText('owner@localhost owner');
    // The first page says where wallets come from: the console makes none.
    await expect(owner.getByTestId('no-wallets')).toContainText('POST /v1/wallets');

    // The owner invites Ada as an admin (a role that approves) and a developer for the application's key.
    await nav(owner, 'Members');
    await owner.getByTestId('members').waitFor();
    const adaLink = await invite(owner, 'ada@example.com', 'admin', ownerCode);
    const appLink = await invite(owner, 'app@example.com', 'developer', ownerCode);
    expect(adaLink).toMatch(new RegExp(`^${consoleUrl}/console/links/[\\w-]+$`));

    // Withdrawals of 0.1 ETH or more wait for two approvals.
    await nav(owner, 'Policies');
    await owner.getByRole('button', { name: 'New policy' }).click();
    await owner.getByLabel('Name').fill('two sign-offs');
    await owner.getByLabel('Rule').selectOption('approval_above');
    await owner.getByLabel(/^Asset/).fill('ETH');
    await owner.getByLabel('At or above (amount)').fill('0.1');
    await owner.getByLabel('Approvals needed').fill('2');
    const sentence = owner.getByTestId('policies').getByTestId('sentence');
    await withStepUp(owner, () => owner.getByRole('button', { name: 'Create policy' }).click(), 'Confirm', sentence, ownerCode);
    await expect(sentence).toHaveText('Withdrawals of 0.1 ETH or more from any wallet need 2 approvals');

    // Ada, in a browser of her own: the link, a password, an authenticator, a sign-in with a code.
    const adaPassword = 'ada keeps another passphrase';
    const ada = await newPage();
    await setPassword(ada, adaLink, adaPassword);
    await ada.getByLabel('Email').fill('ada@example.com');
    await ada.getByLabel('Password').fill(adaPassword);
    await ada.getByRole('button', { name: 'Sign in' }).click();
    const adaCode = await enroll(ada);
    await ada.getByRole('button', { name: 'Sign out' }).click();
    await signIn(ada, 'ada@example.com', adaPassword, adaCode);

    // Ada is a new approver: her approvals count after the cooling-off (48 h) or once another
    // owner vouches for her; the owner knows her and confirms her now, with a step-up.
    await nav(owner, 'Members');
    const adaRow = owner.locator('tr[data-member="ada@example.com"]');
    await expect(adaRow.getByTestId('cooling-off')).toContainText('new approver');
    const confirmed = owner.getByTestId('members-notice');
    await withStepUp(owner, () => adaRow.getByRole('button', { name: 'Confirm as approver' }).click(), 'Confirm', confirmed, ownerCode);
    await expect(confirmed).toHaveText("ada@example.com's approvals count from now on.");

    // Who proposes decides who may approve: a key acts for the member who made it, and a proposer
    // cannot approve their own request. The printed key was made for owner@localhost, so a request
    // proposed with it could be approved by Ada alone and never reach two approvals; a key Ada made
    // would shut her out the same way. The application's key is made by a third member, a
    // developer (a role that may propose but not approve), so that the owner and Ada both can.
    const appPassword = 'the payouts app passphrase';
    const app = await newPage();
    await setPassword(app, appLink, appPassword);
    await app.getByLabel('Email').fill('app@example.com');
    await app.getByLabel('Password').fill(appPassword);
    await app.getByRole('button', { name: 'Sign in' }).click();
    await app.getByTestId('member').waitFor();
    // A developer is not made to enroll, but creating a key asks for a fresh code: the overview offers it.
    await app.getByRole('main').getByRole('link', { name: 'Set up an authenticator' }).click();
    const appCode = await enroll(app);
    await nav(app, 'API keys');
    await app.getByRole('button', { name: 'Create API key' }).click();
    await app.getByLabel('Name (to tell keys apart)').fill('payouts app');
    await app.getByRole('checkbox', { name: /^withdrawal_requests:create/ }).check();
    await app.getByRole('checkbox', { name: /^withdrawals:read/ }).check();
    const secret = app.getByTestId('new-key-secret');
    await withStepUp(app, () => app.getByRole('button', { name: 'Create key' }).click(), 'Confirm and create key', secret, appCode);
    const appKey = (await secret.textContent())!.trim();

    // Over the API, as the README's devnet loop: a wallet, an address, devnet ETH, the deposit confirmed.
    const base = `http://127.0.0.1:${env.PORT}/v1`;
    const v1 = async (method: string, path: string, body?: unknown, key = apiKey) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const wallet = (await v1('POST', '/wallets', { name: 'treasury', chain: 'ethereum', network: 'devnet' })).body as { id: number };
    const { address } = (await v1('POST', `/wallets/${wallet.id}/addresses`)).body as { address: string };
    const funded = await runWalletdAsync(['dev', 'fund', '--address', address, '--amount', '1.25'], env);
    expect(funded.status).toBe(0);
    type Balances = { balances: { asset: { symbol: string }; confirmed: string; available: string }[] };
    const balances = await eventually(
      async () => (await v1('GET', `/wallets/${wallet.id}/balances`)).body as Balances,
      (b) => b.balances.some((x) => x.asset.symbol === 'ETH' && x.confirmed === '1.25'),
      60_000,
    );
    expect(balances.balances.find((b) => b.asset.symbol === 'ETH')).toMatchObject({ confirmed: '1.25', available: '1.25' });

    const recipient = '0x000000000000000000000000000000000000dEaD';
    const proposed = await v1(
      'POST',
      '/withdrawal-requests',
      { walletId: wallet.id, asset: 'ETH', toAddress: recipient, amount: '0.5', note: 'first payout' },
      appKey,
    );
    expect(proposed.status).toBe(201);
    expect(proposed.body).toMatchObject({ status: 'pending', requiredApprovals: 2 });
    const requestId = proposed.body.id as number;

    // Ada approves in her browser, then the owner in theirs; each is asked for a code if their last one is old.
    await nav(ada, 'Requests');
    await ada
      .getByTestId('inbox')
      .getByRole('link', { name: `#${requestId}` })
      .click();
    await ada.getByText('first payout').waitFor();
    const adaOutcome = ada.getByTestId('vote-outcome');
    await withStepUp(
      ada,
      () => ada.getByRole('button', { name: 'Approve', exact: true }).click(),
      'Confirm and approve',
      adaOutcome,
      adaCode,
    );
    await expect(adaOutcome).toHaveText('Your approval is recorded: 1 of 2 approvals so far, waiting for the others.');

    await nav(owner, 'Requests');
    await owner
      .getByTestId('inbox')
      .getByRole('link', { name: `#${requestId}` })
      .click();
    await expect(owner.getByTestId('approvals')).toHaveText('1 of 2');
    const ownerOutcome = owner.getByTestId('vote-outcome');
    await withStepUp(
      owner,
      () => owner.getByRole('button', { name: 'Approve', exact: true }).click(),
      'Confirm and approve',
      ownerOutcome,
      ownerCode,
    );
    const decided = (await ownerOutcome.textContent()) as string;
    const withdrawalId = Number(/withdrawal #(\d+) prepared;/.exec(decided)?.[1]);
    expect(decided).toBe(`Approved: quorum reached, withdrawal #${withdrawalId} prepared; it goes out when someone presses Send.`);

    // Sent by the owner's Send on the request page (issue 42 §6: what the quorum decided goes out
    // from the console, not from a developer's key), then confirmed by the devnet.
    const sendOutcome = owner.getByTestId('send-outcome');
    await withStepUp(owner, () => owner.getByRole('button', { name: 'Send', exact: true }).click(), 'Confirm', sendOutcome, ownerCode);
    await expect(sendOutcome).toHaveText(`Sent: withdrawal #${withdrawalId} is broadcast.`);
    const paid = await eventually(
      async () => (await v1('GET', `/withdrawals/${withdrawalId}`)).body as { status: string; amount: string; requestId: number },
      (w) => w.status === 'confirmed',
      60_000,
    );
    expect(paid).toMatchObject({ status: 'confirmed', amount: '0.5', requestId });

    // The owner sees the payout in the console, with who asked and who approved.
    await owner.goto(`${consoleUrl}/console/withdrawals/${withdrawalId}`);
    await owner.locator('h1 .status.confirmed').waitFor();
    const facts = (await owner.getByTestId('withdrawal-facts').textContent()) as string;
    expect(facts).toContain('ada@example.com');
    expect(facts).toContain('owner@localhost');
    mkdirSync(DOCS, { recursive: true });
    await owner.screenshot({ path: join(DOCS, 'console-newcomer-payout.png'), fullPage: true });

    // The audit log page: the sign-ins, the invitations, the policy, the key and both votes, each with who.
    await nav(owner, 'Audit log');
    const rows = owner.getByTestId('audit').locator('tbody tr');
    await rows.first().waitFor();
    const seen = await Promise.all(
      (await rows.all()).map(async (r) => {
        const td = await r.locator('td').allTextContents();
        return [td[3], td[1]];
      }),
    );
    for (const [action, who] of [
      ['member.signed_in', 'owner@localhost'],
      ['member.signed_in', 'ada@example.com'],
      ['member.mfa_enrolled', 'ada@example.com'],
      ['member.invited', 'owner@localhost'],
      ['policy.created', 'owner@localhost'],
      ['api_key.created', 'app@example.com'],
      ['withdrawal_request.approved', 'ada@example.com'],
      ['withdrawal_request.approved', 'owner@localhost'],
    ])
      expect(seen).toContainEqual([action, who]);
  }, 600_000);
});
