import { Address, beginCell, toNano } from '@ton/core';
import type { ChainSettings } from '@walletd/core';
import {
  type SweepWithdrawal,
  type TestDatabase,
  TonSandboxNode,
  baseUnits,
  createTestDatabase,
  expectSchema,
  sweepBench,
} from '@walletd/test-harness';

const TON = 10n ** 9n;
const USDT = 10n ** 6n;
const nano = (decimal: string) => baseUnits(decimal, 9);

/**
 * Sweeps and gas top-ups on TON (issue 33), executed by @ton/sandbox behind the toncenter test
 * adapter, through the API, the follower and the runner. Two deposit wallets hold jettons and no
 * TON and were never deployed: the station sends each the jetton transfer's fee cap (0.05 TON
 * attached to the jetton wallets + 0.02 TON fee bound) plus 25%, non-bounceable so it stays on the
 * undeployed wallet; the sweep then deploys the wallet (state-init in its first external message)
 * and moves the jettons. A third address holding TON is swept less the 0.02 TON fee bound.
 */
describe('sweeps and the gas station on TON (sandbox)', () => {
  let t: TestDatabase;
  let node: TonSandboxNode;
  let minter: { address: Address; getWalletAddress(owner: Address): Promise<Address> };
  let mint: (to: Address, amount: bigint) => Promise<void>;
  const chain = { chain: 'ton', network: 'localnet' };
  const b = sweepBench();
  const { newWallet, addRule, gasStation, withdrawals, ruleErrors, runSweeps } = b;
  const tonOf = async (address: string) => (await node.chain.getContract(Address.parse(address))).balance;
  const stateOf = async (address: string) => (await node.chain.getContract(Address.parse(address))).accountState?.type ?? 'uninit';
  const jettonsOf = async (owner: string) => {
    const { JettonWallet } = require('@ton-community/assets-sdk') as typeof import('@ton-community/assets-sdk');
    const at = await minter.getWalletAddress(Address.parse(owner));
    if ((await stateOf(at.toString())) !== 'active') return 0n;
    return (await node.chain.openContract(JettonWallet.createFromAddress(at)).getData()).balance;
  };
  const round = async () => {
    node.mine();
    await b.follower.tick();
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    node = await TonSandboxNode.start();
    const { JettonMinter } = require('@ton-community/assets-sdk') as typeof import('@ton-community/assets-sdk');
    const admin = await node.chain.treasury('admin');
    const m = node.chain.openContract(JettonMinter.createFromConfig({ admin: admin.address, content: beginCell().endCell() }));
    node.record(await m.sendDeploy(admin.getSender(), toNano('0.1')));
    minter = m;
    mint = async (to, amount) => {
      node.record(await m.sendMint(admin.getSender(), to, amount, { value: toNano('0.2'), notify: { amount: 1n } }));
    };
    const settings: ChainSettings = {
      ...chain,
      rpcUrl: node.url,
      startBlock: node.mine() + 1,
      tokens: [{ contract: m.address.toString(), symbol: 'USDT', decimals: 6 }],
    };
    await b.start(t.db, settings);
  }, 120_000);
  afterAll(async () => {
    await b.stop();
    await node?.close();
    await t?.drop();
  });

  it('tops up undeployed jetton wallets with exactly the forward and gas amounts plus 25%, then sweeps their jettons and a TON address to the treasury', async () => {
    const walletId = await newWallet('customers');
    const newAddress = () => b.newAddress(walletId);
    const treasury = await newAddress();
    const jettonHolders = [await newAddress(), await newAddress()];
    const tonHolder = await newAddress();
    await mint(Address.parse(jettonHolders[0] as string), 25n * USDT);
    await mint(Address.parse(jettonHolders[1] as string), 40n * USDT);
    const admin = await node.chain.treasury('admin');
    node.record(await admin.send({ to: Address.parse(tonHolder), value: 3n * TON, bounce: false }));
    await round();
    // Undeployed, holding only the nanoton the jetton notification forwarded.
    for (const a of jettonHolders) expect([await stateOf(a), await tonOf(a)]).toEqual(['uninit', 1n]);

    // The station: available here now (TON quotes its fee), funded like any address.
    const empty = await gasStation(walletId);
    expect(empty.status).toBe(200);
    expectSchema('GasStation', empty.body);
    const station = empty.body.address as string;
    node.record(await admin.send({ to: Address.parse(station), value: 1n * TON, bounce: false }));
    await round();

    const jettonRule = await addRule(walletId, { asset: 'USDT', destination: treasury });
    expect(jettonRule.status).toBe(201);
    const tonRule = await addRule(walletId, { asset: 'TON', destination: treasury });
    expect(tonRule.status).toBe(201);

    // The figures a newcomer sees: the jetton transfer's cap 0.07 TON, its top-up 0.0875 TON, the
    // top-up's own fee bound 0.02 TON; 1 TON pays 9 of them.
    const funded = (await gasStation(walletId)).body;
    expectSchema('GasStation', funded);
    expect(funded).toMatchObject({ available: '1', marginPercent: 25 });
    expect(funded.estimate).toMatchObject({ sweepFee: '0.07', topUp: '0.0875', topUpFee: '0.02', runway: 9 });

    const first = await runSweeps();
    expect(first).toMatchObject({ toppedUp: 2, sent: 1, failed: 0 });
    // Before they confirm, another run sends nothing more.
    expect(await runSweeps()).toMatchObject({ toppedUp: 0, sent: 0, failed: 0 });
    await round();
    // Non-bounceable, so the TON stays on the undeployed wallet: the whole top-up (the storage
    // phase may take the forwarded nanoton).
    const sentUp = (await withdrawals(walletId)).filter((w) => w.kind === 'gas_topup');
    for (const a of jettonHolders) {
      const topUp = sentUp.find((w) => w.toAddress === a) as SweepWithdrawal;
      expect([topUp.status, topUp.amount, await stateOf(a)]).toEqual(['confirmed', '0.0875', 'uninit']);
      expect((await tonOf(a)) - nano(topUp.amount)).toBeGreaterThanOrEqual(0n);
    }

    const second = await runSweeps();
    expect(second).toMatchObject({ toppedUp: 0, sent: 2, failed: 0 });
    await round();
    await round(); // the excesses of the jetton transfers come back in the next block

    const all = await withdrawals(walletId);
    expect(all.every((w) => w.status === 'confirmed')).toBe(true);
    const topUps = all.filter((w) => w.kind === 'gas_topup');
    expect(topUps.map((w) => [w.fromAddress, w.toAddress, w.amount]).sort()).toEqual(
      jettonHolders.map((a) => [station, a, '0.0875']).sort(),
    );
    const sweeps = all.filter((w) => w.kind === 'sweep');
    expect(sweeps.map((w) => [w.sweepRuleId, w.fromAddress, w.toAddress, w.amount]).sort()).toEqual(
      [
        [jettonRule.body.id, jettonHolders[0], treasury, '25'],
        [jettonRule.body.id, jettonHolders[1], treasury, '40'],
        [tonRule.body.id, tonHolder, treasury, '2.98'],
      ].sort(),
    );
    expect(await jettonsOf(treasury)).toBe(65n * USDT);
    for (const a of jettonHolders) {
      expect(await jettonsOf(a)).toBe(0n);
      // Deployed by its sweep; what the transfer did not spend of the top-up stays for the next one.
      expect(await stateOf(a)).toBe('active');
      expect(await tonOf(a)).toBeGreaterThan(0n);
    }
    // The TON address keeps what its transfer's fee did not take of the 0.02 TON bound.
    expect(await tonOf(tonHolder)).toBeLessThan(nano('0.02'));
    expect(await ruleErrors(walletId)).toEqual([null, null]);
  }, 120_000);
});
