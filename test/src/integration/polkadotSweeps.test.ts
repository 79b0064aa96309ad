import type { ChainSettings } from '@walletd/core';
import {
  type Chopsticks,
  type SweepWithdrawal,
  type TestDatabase,
  baseUnits,
  createTestDatabase,
  expectSchema,
  startChopsticks,
  sweepBench,
} from '@walletd/test-harness';

const ROC = 10n ** 12n;
const USDT_ID = 1984;
const USDT = 10n ** 6n;
const planck = (decimal: string) => baseUnits(decimal, 12);

/**
 * Sweeps and gas top-ups on Asset Hub (issue 33), executed by the Rococo Asset Hub runtime under
 * chopsticks, through the API, the follower and the runner. USDT (made sufficient, as 1984 is on
 * Polkadot Asset Hub) sits on two addresses holding no native coin: the station sends each the
 * quoted fee plus 25% plus the existential deposit (a transfer below it to an empty account is
 * refused, and fees are charged keeping the account alive), then the whole USDT leaves with
 * `assets.transfer`. A native sweep leaves the existential deposit (transferKeepAlive).
 */
describe('sweeps and the gas station on Asset Hub (chopsticks)', () => {
  let t: TestDatabase;
  let node: Chopsticks;
  const chain = { chain: 'polkadot', network: 'localnet' };
  const b = sweepBench();
  const { newWallet, addRule, gasStation, withdrawals, ruleErrors, runSweeps } = b;
  const free = async (who: string) => (await node.api.query.system.account(who)).data.free.toBigInt();
  const usdtOf = async (who: string) => {
    const a = await node.api.query.assets.account(USDT_ID, who);
    return a.isSome ? a.unwrap().balance.toBigInt() : 0n;
  };
  const round = async (transactions: string[] = []) => {
    await node.newBlock(transactions);
    await node.newBlock();
    await b.follower.tick();
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    node = await startChopsticks();
    await node.createAsset(USDT_ID, 1000n, 10n ** 12n);
    // Sufficient, as USDT is on Polkadot Asset Hub: it alone keeps an account with no DOT alive.
    const details = (await node.api.query.assets.asset(USDT_ID)).unwrap().toJSON() as Record<string, unknown>;
    await node.rpc('dev_setStorage', [{ Assets: { Asset: [[[USDT_ID], { ...details, isSufficient: true }]] } }]);
    const settings: ChainSettings = {
      ...chain,
      rpcUrl: node.url,
      startBlock: Number(await node.head()) + 1,
      confirmations: 1,
      finality: 'confirmations',
      tokens: [{ contract: String(USDT_ID), symbol: 'USDT', decimals: 6 }],
    };
    await b.start(t.db, settings);
  }, 180_000);
  afterAll(async () => {
    await b.stop();
    await node?.stop();
    await t?.drop();
  });

  it('tops up USDT addresses with no DOT by the fee + 25% + the existential deposit, sweeps all their USDT, and sweeps DOT leaving the existential deposit', async () => {
    const ed = node.api.consts.balances.existentialDeposit.toBigInt();
    const tx = node.api.tx;
    const walletId = await newWallet('customers');
    const newAddress = () => b.newAddress(walletId);
    const treasury = await newAddress();
    const holders = [await newAddress(), await newAddress()];
    const dotHolder = await newAddress();
    const station = (await gasStation(walletId)).body.address as string;
    await round([
      await node.sign(tx.assets.transferKeepAlive(USDT_ID, holders[0] as string, 25n * USDT)),
      await node.sign(tx.assets.transferKeepAlive(USDT_ID, holders[1] as string, 40n * USDT)),
      await node.sign(tx.balances.transferKeepAlive(dotHolder, 5n * ROC)),
      await node.sign(tx.balances.transferKeepAlive(station, 10n * ROC)),
    ]);
    for (const a of holders) expect(await free(a)).toBe(0n);

    const usdtRule = await addRule(walletId, { asset: 'USDT', destination: treasury });
    expect(usdtRule.status).toBe(201);
    const dotRule = await addRule(walletId, { asset: 'ROC', destination: treasury });
    expect(dotRule.status).toBe(201);

    // The station's estimate: the sweep's fee bound plus 25%, plus the existential deposit.
    const view = (await gasStation(walletId)).body;
    expectSchema('GasStation', view);
    expect(view).toMatchObject({ available: '10', marginPercent: 25 });
    const sweepFee = planck(view.estimate.sweepFee);
    expect(planck(view.estimate.topUp)).toBe((sweepFee * 125n + 99n) / 100n + ed);

    expect(await runSweeps()).toMatchObject({ toppedUp: 2, sent: 1, failed: 0 });
    await round();
    const topUps = (await withdrawals(walletId)).filter((w) => w.kind === 'gas_topup');
    expect(topUps.map((w) => [w.status, w.fromAddress, w.toAddress]).sort()).toEqual(holders.map((a) => ['confirmed', station, a]).sort());
    for (const a of holders) {
      const topUp = topUps.find((w) => w.toAddress === a) as SweepWithdrawal;
      expect(planck(topUp.amount)).toBe(planck(view.estimate.topUp));
      expect(await free(a)).toBe(planck(topUp.amount));
    }

    expect(await runSweeps()).toMatchObject({ toppedUp: 0, sent: 2, failed: 0 });
    await round();

    const all = await withdrawals(walletId);
    expect(all.map((w) => w.status)).toEqual(all.map(() => 'confirmed'));
    const sweeps = all.filter((w) => w.kind === 'sweep');
    expect(
      sweeps
        .filter((w) => w.sweepRuleId === usdtRule.body.id)
        .map((w) => [w.fromAddress, w.amount])
        .sort(),
    ).toEqual(
      [
        [holders[0], '25'],
        [holders[1], '40'],
      ].sort(),
    );
    expect(await usdtOf(treasury)).toBe(65n * USDT);
    for (const a of holders) {
      expect(await usdtOf(a)).toBe(0n);
      // Alive on its existential deposit and what the fee left of the top-up.
      expect(await free(a)).toBeGreaterThanOrEqual(ed);
    }
    // The DOT sweep: 5 ROC less its fee bound less the existential deposit, which stays.
    const dotSweep = sweeps.find((w) => w.sweepRuleId === dotRule.body.id) as SweepWithdrawal;
    expect(dotSweep.fromAddress).toBe(dotHolder);
    expect(await free(dotHolder)).toBeGreaterThanOrEqual(ed);
    expect(await free(dotHolder)).toBe(5n * ROC - planck(dotSweep.amount) - planck(dotSweep.fee?.amount ?? '0'));
    expect(await ruleErrors(walletId)).toEqual([null, null]);
  }, 180_000);

  it("keeps the runtime's own existential deposit out of what an address can give (no figure of walletd's)", async () => {
    // Read by polkadot.js from the running runtime, independent of walletd's reader.
    const ed = node.api.consts.balances.existentialDeposit.toBigInt();
    // The figure docs/guide/sweeps-and-gas.md gives for this test runtime (Rococo Asset Hub): 0.000003333333 ROC.
    expect(ed).toBe(planck('0.000003333333'));
    const walletId = await newWallet('ed');
    const address = await b.newAddress(walletId);
    await node.fund(address, ROC);
    await node.newBlock();
    const body = (await b.api('GET', `/wallets/${walletId}/balances?onchain=true`)).body;
    const dot = body.balances.find((x: { asset: { contractAddress: string | null } }) => x.asset.contractAddress === null);
    expect(planck(dot.onchain)).toBe(ROC);
    expect(planck(dot.onchain) - planck(dot.onchainSpendable)).toBe(ed);
  });
});
