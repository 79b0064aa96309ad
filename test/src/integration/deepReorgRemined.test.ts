import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey } from '@walletd/core';
import { createDetectPool, type DetectPool, type Follower } from '@walletd/indexer';
import {
  ANVIL_FUNDER,
  type Anvil,
  type BalanceSweeper,
  type Seeded,
  type TestApp,
  type TestDatabase,
  type TestToken,
  call,
  createTestDatabase,
  deployBalanceSweeper,
  deployTestToken,
  expectSchema,
  seedCompany,
  startAnvil,
  startTestApp,
  testFollower,
  wholeFeed,
} from '@walletd/test-harness';

/**
 * Issue 41 §2: the same transaction mined again on the new branch of a reorg deeper than the
 * threshold, moving 4 USDC where walletd had confirmed 10. The same signed `sweep` call (same hash)
 * sends whatever the sweeper holds: 10 on the first branch, 4 on the second. The confirmed 10 is
 * retracted (`previousStatus: "confirmed"`), the 4 announced as new, and the balance is 4.
 */
describe('a transaction mined again with other content after a deep reorg', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  let app: TestApp;
  let s: Seeded;
  let follower: Follower;
  let usdc: TestToken;
  let sweeper: BalanceSweeper;
  const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });
  const round = async (blocks: number) => {
    await anvil.mine(blocks);
    await follower.tick();
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    pool = createDetectPool(1);
    usdc = await deployTestToken(anvil, 'USD Coin', 'USDC', 6);
    sweeper = await deployBalanceSweeper(anvil);
    const settings: ChainSettings = {
      chain: 'ethereum',
      network: 'devnet',
      rpcUrl: anvil.url,
      confirmations: 2,
      startBlock: 0,
      tokens: [{ contract: usdc.address, symbol: 'USDC', decimals: 6 }],
    };
    app = await startTestApp(t.db, { chains: [settings] }, new MasterKey(randomBytes(32)));
    follower = testFollower(t.db, pool, settings);
    s = await seedCompany(t.db);
  });
  afterAll(async () => {
    await app.close();
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  it('retracts the confirmed 10 USDC (previousStatus confirmed) and announces the 4 as a new deposit', async () => {
    const walletId = (await api('POST', '/wallets', { name: 'hot', chain: 'ethereum', network: 'devnet' })).body.id as number;
    const address = (await api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    await usdc.mint(sweeper.address, 4_000_000n);
    await follower.tick();
    const snapshot = await anvil.rpc<string>('evm_snapshot');
    const nonce = BigInt(await anvil.rpc<string>('eth_getTransactionCount', [ANVIL_FUNDER, 'latest']));
    // Branch A: 6 more arrive (nonce n), then the sweep (nonce n + 1) moves all 10.
    await usdc.mint(sweeper.address, 6_000_000n);
    const raw = await sweeper.signSweep(usdc.address, address, nonce + 1n);
    const tx = await anvil.rpc<string>('eth_sendRawTransaction', [raw]);
    expect((await anvil.receipt(tx)).status).toBe('0x1');
    await round(2);
    const usdcBalance = async () =>
      (await api('GET', `/wallets/${walletId}/balances`)).body.balances.find(
        (b: { asset: { symbol: string } }) => b.asset.symbol === 'USDC',
      );
    expect(await usdcBalance()).toMatchObject({ confirmed: '10', available: '10' });

    // Branch B, longer: nonce n goes to another transaction, and the same signed sweep finds 4.
    await anvil.rpc('evm_revert', [snapshot]);
    await anvil.mine(2);
    await anvil.send('0x000000000000000000000000000000000000dEaD', 1n);
    expect(await anvil.rpc<string>('eth_sendRawTransaction', [raw])).toBe(tx);
    expect((await anvil.receipt(tx)).status).toBe('0x1');
    await round(1);
    await round(1);

    const feed = await wholeFeed(
      t.db,
      s.companyId,
      async () => (await api('GET', '/events?limit=1000')).body.events as { type: string; data: Record<string, unknown> }[],
    );
    const events = feed.filter((e) => e.data.txHash === tx);
    expect(events.map((e) => [e.type, e.data.amount, e.data.previousStatus ?? null])).toEqual([
      ['deposit.detected', '10', null],
      ['deposit.confirmed', '10', null],
      ['deposit.rejected', '10', 'confirmed'],
      ['deposit.detected', '4', null],
      ['deposit.confirmed', '4', null],
    ]);
    expect(events[2]?.data).toMatchObject({ reason: 'reorg', status: 'rejected' });
    expectSchema('DepositEventData', events[2]?.data);
    expect(await usdcBalance()).toMatchObject({ confirmed: '4', available: '4', pending: '0' });
  });
});
