import type { ChainSettings } from '@walletd/core';
import { gasForSweep, runSweeps } from '@walletd/server';
import {
  type Anvil,
  type SweepWithdrawal,
  type TestDatabase,
  type TestToken,
  baseUnits,
  createTestDatabase,
  deployTestToken,
  expectSchema,
  startOnAnvilWithUsdc,
  sweepBench,
  testConfig,
} from '@walletd/test-harness';

const ETH = 10n ** 18n;
const USDC = 10n ** 6n;
const wei = (decimal: string) => baseUnits(decimal, 18);
const HOUR = 3_600_000;

/**
 * The gas station (issue 33) on anvil, through the API and the runner the indexer leads: ten
 * deposit addresses hold devnet USDC and no ETH; one rule sweeps USDC to the treasury. The first
 * run sends each address exactly the quoted fee plus the margin from the wallet's gas station
 * (withdrawals of kind gas_topup); once they confirm, the next run sweeps the USDC. No address is
 * topped up twice (a second run, a new window), a token off the allow-list is never topped up, and
 * the rule's daily gas cap refuses what would pass it.
 */
describe('gas station on anvil', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let usdc: TestToken;
  let settings: ChainSettings;
  const chain = { chain: 'ethereum', network: 'devnet' };
  const b = sweepBench();
  const { api, newWallet, newAddress, addRule, gasStation, withdrawals, runSweeps: sweepNow } = b;
  const ethOf = async (address: string) => BigInt(await anvil.rpc<string>('eth_getBalance', [address, 'latest']));
  const tokenOf = async (token: string, address: string) =>
    BigInt(
      await anvil.rpc<string>('eth_call', [{ to: token, data: `0x70a08231${address.slice(2).toLowerCase().padStart(64, '0')}` }, 'latest']),
    );
  const round = async (blocks = 1) => {
    await anvil.mine(blocks);
    await b.follower.tick();
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    ({ anvil, usdc, settings } = await startOnAnvilWithUsdc(b, t.db));
  });
  afterAll(async () => {
    await b.stop();
    await anvil.stop();
    await t.drop();
  });

  it('ten USDC addresses with no ETH: each gets exactly one top-up from the station, then its USDC reaches the treasury; every step is in the feed', async () => {
    const walletId = await newWallet('customers');
    const treasury = await newAddress(walletId);
    const sources: { address: string; amount: bigint }[] = [];
    for (let i = 1; i <= 10; i++) sources.push({ address: await newAddress(walletId), amount: BigInt(i) * 10n * USDC });
    for (const src of sources) await usdc.mint(src.address, src.amount);
    await round(2);

    // The station exists at the first ask, holds nothing yet, and is not a deposit address.
    const empty = await gasStation(walletId);
    expect(empty.status).toBe(200);
    expectSchema('GasStation', empty.body);
    const station = empty.body.address as string;
    expect(empty.body).toMatchObject({ available: '0', confirmed: '0', marginPercent: 25, estimate: null });
    expect((await gasStation(walletId)).body.address).toBe(station);
    const listed = (await api('GET', `/wallets/${walletId}/addresses`)).body.addresses.map((a: { address: string }) => a.address);
    expect(listed).not.toContain(station);
    await anvil.send(station, 1n * ETH);
    await round(2);

    const created = await addRule(walletId, {
      asset: 'USDC',
      destination: treasury,
      threshold: '5',
      trigger: 'schedule',
      intervalSeconds: 3600,
    });
    expect(created.status).toBe(201);
    expectSchema('SweepRule', created.body);
    expect(created.body.gasDailyCap).toBeNull();
    const ruleId = created.body.id as number;

    const funded = await gasStation(walletId);
    expectSchema('GasStation', funded.body);
    expect(funded.body).toMatchObject({ available: '1', confirmed: '1', reserved: '0', spentLast24h: '0' });
    const estimate = funded.body.estimate as { ruleId: number; sweepFee: string; topUp: string; topUpFee: string; runway: number };
    expect(estimate.ruleId).toBe(ruleId);
    // The top-up is the quoted sweep fee plus 25%, and the runway what 1 ETH pays of them.
    expect(wei(estimate.topUp)).toBe((wei(estimate.sweepFee) * 125n + 99n) / 100n);
    expect(BigInt(estimate.runway)).toBe(ETH / (wei(estimate.topUp) + wei(estimate.topUpFee)));
    expect(estimate.runway).toBeGreaterThan(10);

    const stationBefore = await ethOf(station);
    const now = Date.now();
    const first = await sweepNow(now);
    expect(first).toMatchObject({ rules: 1, sent: 0, toppedUp: 10, failed: 0 });
    // Before the top-ups confirm: the same window again, and the next one, send nothing more.
    const again = await sweepNow(now);
    const nextWindow = await sweepNow(now + HOUR);
    expect([again.toppedUp, again.sent, nextWindow.toppedUp, nextWindow.sent]).toEqual([0, 0, 0, 0]);
    await round(3);

    const swept = await sweepNow(now);
    expect(swept).toMatchObject({ sent: 10, toppedUp: 0, failed: 0 });
    await round(3);

    const all = await withdrawals(walletId);
    const topUps = all.filter((w) => w.kind === 'gas_topup');
    const sweeps = all.filter((w) => w.kind === 'sweep');
    expect([topUps.length, sweeps.length, all.length]).toEqual([10, 10, 20]);
    let stationSpent = 0n;
    for (const src of sources) {
      const mine = topUps.filter((w) => w.toAddress === src.address);
      expect(mine).toHaveLength(1);
      const topUp = mine[0] as SweepWithdrawal;
      expect(topUp).toMatchObject({ fromAddress: station, sweepRuleId: ruleId, status: 'confirmed' });
      const detail = (await api('GET', `/withdrawals/${topUp.id}`)).body;
      expectSchema('Withdrawal', detail);
      stationSpent += wei(topUp.amount) + wei(topUp.fee?.amount ?? '0');
      const sweep = sweeps.find((w) => w.fromAddress === src.address) as SweepWithdrawal;
      expect(sweep).toMatchObject({ toAddress: treasury, sweepRuleId: ruleId, status: 'confirmed' });
      expect(baseUnits(sweep.amount, 6)).toBe(src.amount);
      // What the sweep's fee left of the top-up stays on the address; no USDC does.
      expect(await ethOf(src.address)).toBe(wei(topUp.amount) - wei(sweep.fee?.amount ?? '0'));
      expect(await tokenOf(usdc.address, src.address)).toBe(0n);
    }
    expect(await tokenOf(usdc.address, treasury)).toBe(sources.reduce((sum, x) => sum + x.amount, 0n));
    expect(stationBefore - (await ethOf(station))).toBe(stationSpent);

    const after = (await gasStation(walletId)).body;
    expectSchema('GasStation', after);
    expect(wei(after.spentLast24h)).toBe(stationSpent);
    expect(wei(after.available)).toBe(ETH - stationSpent);

    // The feed: each top-up and each sweep broadcast and confirmed, naming its kind and the rule.
    const feed = await b.feed({ atLeast: 40, of: (e) => e.type.startsWith('withdrawal.') });
    const mine = feed.filter((e) => e.type.startsWith('withdrawal.') && e.data.sweepRuleId === ruleId);
    const steps = (kind: string, type: string) => mine.filter((e) => e.data.kind === kind && e.type === type).length;
    expect([
      steps('gas_topup', 'withdrawal.broadcast'),
      steps('gas_topup', 'withdrawal.confirmed'),
      steps('sweep', 'withdrawal.broadcast'),
      steps('sweep', 'withdrawal.confirmed'),
    ]).toEqual([10, 10, 10, 10]);
    // A top-up is an internal movement: no deposit event for it.
    const deposits = feed.filter(
      (e) => e.type.startsWith('deposit.') && e.data.asset?.symbol === 'ETH' && sources.some((x) => x.address === e.data.address),
    );
    expect(deposits).toHaveLength(0);

    // Nothing left to sweep: the next window sends and tops up nothing.
    const later = await sweepNow(now + 2 * HOUR);
    expect([later.toppedUp, later.sent, later.failed]).toEqual([0, 0, 0]);
    expect((await api('GET', `/wallets/${walletId}/sweep-rules/${ruleId}`)).body.lastError).toBeNull();
  });

  it('never tops up for a token off the allow-list: a look-alike is refused, and a rule whose token left the config stops', async () => {
    const walletId = await newWallet('lured');
    const treasury = await newAddress(walletId);
    const src = await newAddress(walletId);
    const lure = await deployTestToken(anvil, 'USD Coin', 'USDC', 6);
    await lure.mint(src, 1_000n * USDC);
    await usdc.mint(src, 50n * USDC);
    await round(2);
    const station = (await gasStation(walletId)).body.address as string;
    await anvil.send(station, ETH / 10n);
    await round(2);
    const rule = await addRule(walletId, { asset: lure.address, destination: treasury });
    expect(rule.body).toMatchObject({ statusCode: 422, code: 'unknown_asset' });
    const listed = await addRule(walletId, { asset: 'USDC', destination: treasury });
    expect(listed.status).toBe(201);

    // The top-up step itself refuses a token the chain does not list, even under a listed symbol.
    const wallet = await t.db('wallets').where({ id: walletId }).first();
    const row = await t.db('sweep_rules').where({ id: listed.body.id }).first();
    const fake = { key: `ethereum:devnet:${lure.address.toLowerCase()}`, symbol: 'USDC', decimals: 6, contractAddress: lure.address };
    await expect(gasForSweep(b.common, wallet, row, fake, src, 'd1', 1_000n * USDC)).rejects.toMatchObject({ code: 'unknown_asset' });

    // The operator takes USDC out of the allow-list: the runner tops up and sweeps nothing, and says why.
    const unlisted = { ...b.common, config: testConfig({ chains: [{ ...settings, tokens: [] }] }) };
    const run = await runSweeps(unlisted, chain);
    expect([run.toppedUp, run.sent]).toEqual([0, 0]);
    expect(await t.db('withdrawals').where({ wallet_id: walletId })).toHaveLength(0);
    expect(await ethOf(src)).toBe(0n);
    const shown = await api('GET', `/wallets/${walletId}/sweep-rules/${listed.body.id}`);
    expect(shown.body.lastError).toMatch(/no longer known/);
    expect((await api('DELETE', `/wallets/${walletId}/sweep-rules/${listed.body.id}`)).status).toBe(204);
    // No station where top-ups are not built (here a UTXO chain): 422, nothing derived.
    const btc = (await api('POST', '/wallets', { name: 'btc', chain: 'bitcoin', network: 'regtest' })).body.id as number;
    expect((await gasStation(btc)).body).toMatchObject({ statusCode: 422, code: 'unprocessable' });
  });

  it("the rule's gasDailyCap refuses a top-up that would pass it (lastError says so); PATCH lifts it", async () => {
    const walletId = await newWallet('capped');
    const treasury = await newAddress(walletId);
    const a = await newAddress(walletId);
    const b = await newAddress(walletId);
    await usdc.mint(a, 20n * USDC);
    await usdc.mint(b, 30n * USDC);
    await round(2);
    const station = (await gasStation(walletId)).body.address as string;
    await anvil.send(station, ETH / 10n);
    await round(2);
    const made = await addRule(walletId, { asset: 'USDC', destination: treasury, gasDailyCap: '1' });
    expect(made.status).toBe(201);
    expect(made.body.gasDailyCap).toBe('1');
    const ruleId = made.body.id as number;
    // One top-up and a half: the second address waits for tomorrow.
    const { estimate } = (await gasStation(walletId)).body;
    const one = wei(estimate.topUp) + wei(estimate.topUpFee);
    const cap = (one * 3n) / 2n;
    const patched = await api('PATCH', `/wallets/${walletId}/sweep-rules/${ruleId}`, {
      gasDailyCap: `0.${cap.toString().padStart(18, '0')}`,
    });
    expect(patched.status).toBe(200);
    expect(wei(patched.body.gasDailyCap)).toBe(cap);
    const bad = await api('PATCH', `/wallets/${walletId}/sweep-rules/${ruleId}`, { gasDailyCap: '0' });
    expect(bad.body).toMatchObject({ statusCode: 400, code: 'invalid_amount' });

    const run = await sweepNow();
    expect(run).toMatchObject({ toppedUp: 1, failed: 1 });
    const rule = (await api('GET', `/wallets/${walletId}/sweep-rules/${ruleId}`)).body;
    expect(rule.lastError).toMatch(/gasDailyCap/);
    expect((await withdrawals(walletId)).filter((w) => w.kind === 'gas_topup')).toHaveLength(1);

    // Without a cap the other address is topped up at the next tick, and both are swept.
    expect((await api('PATCH', `/wallets/${walletId}/sweep-rules/${ruleId}`, { gasDailyCap: null })).body.gasDailyCap).toBeNull();
    await round(3);
    expect(await sweepNow()).toMatchObject({ toppedUp: 1, sent: 1, failed: 0 });
    await round(3);
    expect(await sweepNow()).toMatchObject({ toppedUp: 0, sent: 1, failed: 0 });
    await round(3);
    expect(await tokenOf(usdc.address, treasury)).toBe(50n * USDC);
  });
});
