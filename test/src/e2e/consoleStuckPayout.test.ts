import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { type FundedTreasury, onboardMember, startFundedTreasury } from '@walletd/test-harness';
import { describeWithChromium, screenshotDir, signInInBrowser } from '../harness/chromium';

const DOCS = screenshotDir();
const DEAD = '0x000000000000000000000000000000000000dEaD';

/**
 * Issue 46 in the console, on anvil (automine off): a payout priced under a raised base fee stays
 * broadcast and the one after it waits behind its nonce (the page says which); an owner speeds it
 * up from the withdrawal page, asked for a fresh authenticator code first, sees the replacement
 * listed with its fee cap, and both payouts land. The replacement is audited under the member.
 * Another stuck payout is cancelled on chain from its page and ends rejected, cancelled_onchain.
 * The page's Hash line names the latest broadcast after a replacement, then the one that landed.
 */
describeWithChromium('speed up a stuck payout from the console', () => {
  let f: FundedTreasury;
  const browsers: BrowserContext[] = [];

  beforeAll(async () => {
    f = await startFundedTreasury();
    await f.anvil.rpc('evm_setAutomine', [false]);
  });
  afterAll(async () => {
    for (const b of browsers) await b.close();
    await f?.close();
  });

  const payout = async (key: string, amount: string) => {
    const prepared = await f.api('POST', `/wallets/${f.walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: DEAD,
      amount,
      idempotencyKey: key,
    });
    expect(prepared.status).toBe(201);
    const sent = await f.api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(sent.body.status).toBe('broadcast');
    return { id: prepared.body.id as number, txHash: sent.body.txHash as string };
  };

  it('an owner sees what waits behind a stuck payout, speeds it up with a step-up (both land) and cancels another on chain', async () => {
    const a = await payout('a', '0.1');
    const { baseFeePerGas } = await f.anvil.rpc<{ baseFeePerGas: string }>('eth_getBlockByNumber', ['latest', false]);
    await f.anvil.rpc('anvil_setNextBlockBaseFeePerGas', [`0x${(BigInt(baseFeePerGas) * 20n + 10n ** 10n).toString(16)}`]);
    await f.anvil.mine(1);
    const b = await payout('b', '0.2');
    await f.anvil.mine(1);
    await f.follower.tick();
    expect((await f.api('GET', `/withdrawals/${a.id}`)).body.status).toBe('broadcast');

    const email = `owner-${f.s.companyId}@example.com`;
    const owner = await onboardMember(f.con, f.t.db, { companyId: f.s.companyId, email, role: 'owner' });
    const page = await signInInBrowser(f.con.url, owner, browsers);
    await page.goto(`${f.con.url}/console/withdrawals/${b.id}`);
    await page
      .getByTestId('blocked-by')
      .filter({ hasText: `withdrawal #${a.id}` })
      .waitFor();

    // The sign-in code is long past: the speed-up asks for a fresh one, then goes through.
    f.con.clock.now += 6 * 60_000;
    await page.getByRole('link', { name: `withdrawal #${a.id}` }).click();
    await page.getByRole('heading', { name: `Withdrawal #${a.id}` }).waitFor();
    await page.getByRole('button', { name: 'Speed up' }).click();
    await page.getByText(`To speed up withdrawal #${a.id}, confirm with a fresh code`).waitFor();
    expect(await f.t.db('withdrawal_attempts').where({ withdrawal_id: a.id })).toHaveLength(0);
    await page.getByLabel('Authenticator code').fill(owner.code());
    await page.getByRole('button', { name: 'Confirm' }).click();
    const rows = page.getByTestId('attempts').locator('tbody tr');
    await rows.nth(1).waitFor();
    const attempts = await f.t.db('withdrawal_attempts').where({ withdrawal_id: a.id }).orderBy('id');
    expect(attempts.map((x: { kind: string }) => x.kind)).toEqual(['original', 'speed_up']);
    const cells = await Promise.all((await rows.all()).map((r) => r.locator('td').allTextContents()));
    expect(cells.map((c) => [c[0], c[1]])).toEqual([
      [a.txHash, 'original'],
      [attempts[1].tx_hash, 'speed-up'],
    ]);
    expect(cells[1]?.[2]).toMatch(/^[0-9.]+ ETH$/);
    // The Hash line names the replacement, the one that can still land, not the row's original.
    const facts = page.getByTestId('withdrawal-facts');
    await expect(facts.locator('dt', { hasText: /^Hash/ })).toHaveText('Hash (latest broadcast of 2)');
    await expect(page.getByTestId('withdrawal-hash')).toHaveText(attempts[1].tx_hash);
    mkdirSync(DOCS, { recursive: true });
    await page.screenshot({ path: join(DOCS, 'console-stuck-payout.png'), fullPage: true });
    const [member] = await f.t.db('members').where({ email }).select('id');
    const audited = await f.t.db('audit_log').where({ action: 'withdrawal.speed_up', target_id: String(a.id) });
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({ actor_type: 'member', actor_id: String(member.id) });

    // The replacement pays the raised base fee: both payouts land.
    await f.anvil.mine(1);
    await f.follower.tick();
    expect((await f.api('GET', `/withdrawals/${a.id}`)).body).toMatchObject({ status: 'confirmed', txHash: attempts[1].tx_hash });
    expect((await f.api('GET', `/withdrawals/${b.id}`)).body.status).toBe('confirmed');
    await page.reload();
    await facts.locator('dt', { hasText: 'Hash (landed)' }).waitFor();
    await expect(page.getByTestId('withdrawal-hash')).toHaveText(attempts[1].tx_hash);

    // Cancel on chain from the page (the step-up above is still fresh): the cancel is listed, and
    // once it lands the page reads rejected, cancelled_onchain.
    const c = await payout('c', '0.3');
    const { baseFeePerGas: base } = await f.anvil.rpc<{ baseFeePerGas: string }>('eth_getBlockByNumber', ['latest', false]);
    await f.anvil.rpc('anvil_setNextBlockBaseFeePerGas', [`0x${(BigInt(base) * 20n + 10n ** 10n).toString(16)}`]);
    await f.anvil.mine(1);
    await f.follower.tick();
    await page.goto(`${f.con.url}/console/withdrawals/${c.id}`);
    await page.getByRole('heading', { name: `Withdrawal #${c.id}` }).waitFor();
    await page.getByRole('button', { name: 'Cancel on chain' }).click();
    await rows.nth(1).filter({ hasText: 'cancel on chain' }).waitFor();
    expect(await page.getByRole('button', { name: 'Speed up' }).isDisabled()).toBe(true);
    await f.anvil.mine(1);
    await f.follower.tick();
    expect((await f.api('GET', `/withdrawals/${c.id}`)).body).toMatchObject({ status: 'rejected', reason: 'cancelled_onchain' });
    await page.reload();
    await page.getByTestId('withdrawal-facts').filter({ hasText: 'cancelled_onchain' }).waitFor();
    // The cancel landed: the Hash line is its hash, not the payout's.
    const cancel = await f.t.db('withdrawal_attempts').where({ withdrawal_id: c.id, kind: 'cancel' }).first('tx_hash');
    await expect(facts.locator('dt', { hasText: /^Hash/ })).toHaveText('Hash (landed)');
    await expect(page.getByTestId('withdrawal-hash')).toHaveText(cancel.tx_hash);
    expect(cancel.tx_hash).not.toBe(c.txHash);
  });
});
