import { type ChainReader, type ChainSettings, MasterKey, createLogger, createMetrics, registerPlugins } from '@walletd/core';
import { createDetectPool, createFollower, createIndexer, type DetectPool, type Follower } from '@walletd/indexer';
import { createEvmPlugin } from '@walletd/plugin-evm';
import { createWallet, generateAddress, loadPlugins } from '@walletd/server';
import { randomBytes } from 'node:crypto';
import {
  createTestDatabase,
  eventually,
  seedCompany,
  startAnvil,
  type Anvil,
  type TestDatabase,
  shippedPlugins,
} from '@walletd/test-harness';

/** The indexer against a real EVM node (anvil): native deposits, confirmations, reorgs, restarts. */
describe('EVM deposits on anvil', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  const masterKey = new MasterKey(randomBytes(32));
  const plugin = createEvmPlugin();
  const registry = registerPlugins([plugin]);
  const logger = createLogger({ level: 'silent' });

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    pool = createDetectPool(2);
  });
  afterAll(async () => {
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  const metrics = createMetrics();
  /** `reader`: the node as another reader sees it (a stale one); the follower's own by default. */
  const follower = (reader?: ChainReader) =>
    createFollower({
      db: t.db,
      logger,
      pool,
      metrics,
      ...(reader ? { reader } : {}),
      plugin: registry.forChain('ethereum')!,
      settings: { chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, confirmations: 3, startBlock: 0 },
    });

  async function depositAddress() {
    const s = await seedCompany(t.db);
    const wallet = await createWallet(
      t.db,
      masterKey,
      { companyId: s.companyId, name: 'hot', chain: 'ethereum', network: 'devnet' },
      shippedPlugins(),
    );
    const row = await t.db('wallets').where({ id: wallet.id }).first();
    return generateAddress({ db: t.db, masterKey, plugins: loadPlugins() }, row, null);
  }
  const events = async (type: string) =>
    (await t.db('events').where({ type }).orderBy('seq').pluck('body')).map((b: string) => JSON.parse(b));

  it('detects a native deposit, confirms it at the threshold with the exact amount, and survives restart and rescan', async () => {
    const addr = await depositAddress();
    const f = follower();
    const tx = await anvil.send(addr.address, 1_500_000_000_000_000_001n);
    await f.tick();
    const detected = await events('deposit.detected');
    expect(detected).toHaveLength(1);
    expect(detected[0]).toMatchObject({
      type: 'deposit.detected',
      chain: 'ethereum',
      network: 'devnet',
      data: {
        txHash: tx,
        status: 'pending',
        direction: 'incoming',
        amount: '1.500000000000000001',
        toAddress: addr.address,
        addressId: addr.id,
        eventType: 'native_transfer',
        eventIndex: 0,
        asset: { key: 'ethereum:devnet:eth', symbol: 'ETH', decimals: 18, contractAddress: null },
      },
    });
    expect(detected[0].data.fromAddress).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    expect(await events('deposit.confirmed')).toHaveLength(0);

    await anvil.mine(1);
    await f.tick();
    expect(await events('deposit.confirmed')).toHaveLength(0); // 2 confirmations of 3
    await anvil.mine(1);
    await f.tick();
    const confirmed = await events('deposit.confirmed');
    expect(confirmed).toHaveLength(1);
    expect(confirmed[0].data).toMatchObject({ txHash: tx, status: 'confirmed', confirmations: 3, amount: '1.500000000000000001' });
    const text = await metrics.registry.metrics();
    const head = await anvil.head();
    expect(text).toContain(`walletd_chain_indexed_height{chain="ethereum",network="devnet"} ${head}`);
    expect(text).toContain(`walletd_chain_lag_blocks{chain="ethereum",network="devnet"} 0`);
    expect(text).toContain(`walletd_deposit_events_total{chain="ethereum",network="devnet",type="deposit.confirmed"} 1`);

    // A new follower (a restart) and a rescan from genesis find nothing new and emit nothing twice.
    const again = follower();
    await again.tick();
    const cursor = await t.db('chain_cursors').where({ chain: 'ethereum', network: 'devnet' }).first('height', 'hash');
    await again.rescanFrom(0n);
    // The rescan records transfers only: the live cursor is not moved.
    expect(await t.db('chain_cursors').where({ chain: 'ethereum', network: 'devnet' }).first('height', 'hash')).toEqual(cursor);
    expect(await events('deposit.detected')).toHaveLength(1);
    expect(await events('deposit.confirmed')).toHaveLength(1);
    expect(await t.db('transfers').where({ tx_hash: tx }).count('* as n')).toEqual([{ n: 1 }]);
  });

  it('retracts a pending deposit that a reorg removed (deposit.rejected, reason reorg)', async () => {
    const addr = await depositAddress();
    const f = follower();
    await f.tick();
    const tx = await anvil.send(addr.address, 2_000_000_000_000_000_000n);
    await f.tick();
    const mine = (await events('deposit.detected')).filter((e) => e.data.txHash === tx);
    expect(mine).toHaveLength(1);
    // Replace the block holding the deposit (and one more) with empty blocks.
    await anvil.rpc('anvil_reorg', [2, []]);
    await f.tick();
    const rejected = (await events('deposit.rejected')).filter((e) => e.data.txHash === tx);
    expect(rejected).toHaveLength(1);
    expect(rejected[0].data).toMatchObject({ status: 'rejected', reason: 'reorg', amount: '2' });
    expect(f.stats().reorgs).toBe(1);
    // It never confirms, however long the chain grows.
    await anvil.mine(5);
    await f.tick();
    expect((await events('deposit.confirmed')).filter((e) => e.data.txHash === tx)).toHaveLength(0);
  });

  it("detects the replacement chain's transfers once after a reorg", async () => {
    const addr = await depositAddress();
    const f = follower();
    await f.tick();
    const old = await anvil.send(addr.address, 7n);
    await f.tick();
    // The last block is replaced by one that pays the address differently.
    await anvil.rpc('anvil_reorg', [1, [[{ from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', to: addr.address, value: '0xb' }, 0]]]);
    await f.tick();
    await f.tick();
    const detected = (await events('deposit.detected')).filter((e) => e.data.addressId === addr.id);
    const rejected = (await events('deposit.rejected')).filter((e) => e.data.addressId === addr.id);
    expect(detected.map((e) => e.data.amount).sort()).toEqual(['0.000000000000000007', '0.000000000000000011']);
    expect(rejected.map((e) => e.data.txHash)).toEqual([old]);
    const replacement = detected.find((e) => e.data.txHash !== old);
    expect(await t.db('transfers').where({ tx_hash: replacement.data.txHash }).count('* as n')).toEqual([{ n: 1 }]);
  });

  it('a rescan records nothing from a block that is not final and not the chain the live follower recorded', async () => {
    const addr = await depositAddress();
    const f = follower();
    await f.tick();
    // Fork A: a block paying the address, read (as a lagging or balanced node would still serve
    // it), then replaced on the node by an empty block at the same height.
    const snapshot = await anvil.rpc<string>('evm_snapshot');
    const tx = await anvil.send(addr.address, 5n);
    const height = BigInt(await anvil.rpc<string>('eth_blockNumber'));
    const live = plugin.createReader('ethereum', 'devnet', { rpcUrl: anvil.url });
    const forkA = await live.fetchBlock(height);
    await anvil.rpc('evm_revert', [snapshot]);
    await anvil.mine(1);
    expect(BigInt(await anvil.rpc<string>('eth_blockNumber'))).toBe(height);
    // A copy each time: the pool takes the bytes it is handed (transferred, not copied).
    const stale = {
      ...live,
      fetchBlock: async (h: bigint) => (h === height ? (forkA as Uint8Array).slice() : live.fetchBlock(h)),
      head: async () => height,
    };
    const rescan = follower(stale);
    expect(await rescan.rescanFrom(height - 1n)).toEqual({ to: height - 1n, stoppedAt: height });
    // Once the real chain is deep enough, nothing of fork A was ever recorded, detected or confirmed.
    await anvil.mine(4);
    await f.tick();
    expect(await t.db('transfers').where({ tx_hash: tx }).count('* as n')).toEqual([{ n: 0 }]);
    expect((await events('deposit.detected')).filter((e) => e.data.txHash === tx)).toHaveLength(0);
    // A rescan through the node itself: final up to head - 2, the rest the live follower's own
    // blocks; it reads to the head and fork A's payment is still nowhere.
    const head = BigInt(await anvil.rpc<string>('eth_blockNumber'));
    expect(await follower().rescanFrom(height)).toEqual({ to: head, stoppedAt: null });
    expect(await t.db('transfers').where({ tx_hash: tx }).count('* as n')).toEqual([{ n: 0 }]);
  });
});

describe('finality by the finalized tag', () => {
  /** The EVM plugin with ethereum/devnet declaring `finality` as its network default. */
  const pluginDeclaring = (finality: 'finalized' | 'confirmations') => {
    const evm = createEvmPlugin();
    return {
      ...evm,
      chains: evm.chains.map((c) => ({ ...c, networks: c.networks.map((n) => (n.network === 'devnet' ? { ...n, finality } : n)) })),
    };
  };

  /** A deposit address of a fresh wallet and a follower over `anvil`; everything stopped afterwards. */
  async function withFollower(
    anvilArgs: string[],
    plugin: ReturnType<typeof createEvmPlugin>,
    settings: Partial<ChainSettings>,
    fn: (f: Follower, anvil: Anvil, deposit: () => Promise<string>, status: (tx: string) => Promise<unknown>) => Promise<void>,
  ): Promise<void> {
    const t = await createTestDatabase();
    const anvil = await startAnvil(anvilArgs);
    const pool = createDetectPool(1);
    const masterKey = new MasterKey(randomBytes(32));
    try {
      const s = await seedCompany(t.db);
      const wallet = await createWallet(
        t.db,
        masterKey,
        { companyId: s.companyId, name: 'hot', chain: 'ethereum', network: 'devnet' },
        shippedPlugins(),
      );
      const addr = await generateAddress(
        { db: t.db, masterKey, plugins: loadPlugins() },
        await t.db('wallets').where({ id: wallet.id }).first(),
        null,
      );
      const f = createFollower({
        db: t.db,
        logger: createLogger({ level: 'silent' }),
        pool,
        plugin,
        settings: { chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, startBlock: 0, ...settings },
      });
      await fn(
        f,
        anvil,
        () => anvil.send(addr.address, 5n),
        (tx) => t.db('transfers').where({ tx_hash: tx }).first('status', 'confirmations'),
      );
    } finally {
      await pool.close();
      await anvil.stop();
      await t.drop();
    }
  }

  it.each([
    ['the configuration says finalized', createEvmPlugin(), { finality: 'finalized' as const }],
    // Regression: the follower read only the configuration, so a network's declared rule was ignored.
    ['the plugin declares finalized for the network and the configuration is silent', pluginDeclaring('finalized'), {}],
  ])('confirms a deposit when the finalized block covers it, whatever the count threshold (%s)', async (_case, plugin, override) => {
    // --slots-in-an-epoch 1: finalized = head - 2.
    await withFollower(['--slots-in-an-epoch', '1'], plugin, { confirmations: 100, ...override }, async (f, anvil, deposit, status) => {
      await anvil.mine(3);
      const tx = await deposit();
      await f.tick();
      expect(await status(tx)).toMatchObject({ status: 'pending' });
      await anvil.mine(1);
      await f.tick();
      expect(await status(tx)).toMatchObject({ status: 'pending' }); // finalized is one block short
      await anvil.mine(1);
      await f.tick();
      expect(await status(tx)).toEqual({ status: 'confirmed', confirmations: 3 });
    });
  });

  it("the configuration overrides the network's declared finality", async () => {
    // Without epochs anvil finalizes nothing beyond block 0: only the count can confirm.
    const settings = { confirmations: 1, finality: 'confirmations' as const };
    await withFollower([], pluginDeclaring('finalized'), settings, async (f, _anvil, deposit, status) => {
      const tx = await deposit();
      await f.tick();
      expect(await status(tx)).toEqual({ status: 'confirmed', confirmations: 1 });
    });
  });
});

describe('indexer fail-over', () => {
  it('a second indexer stands by on the lease and takes over when the first stops', async () => {
    const t = await createTestDatabase();
    const anvil = await startAnvil();
    const masterKey = new MasterKey(randomBytes(32));
    const chains = [{ chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, confirmations: 1, startBlock: 0, pollIntervalMs: 50 }];
    const registry = registerPlugins([createEvmPlugin()]);
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (l: string) => lines.push(l) } as never });
    const first = createIndexer({ db: t.db, logger, registry, chains, threads: 1 });
    const second = createIndexer({ db: t.db, logger, registry, chains, threads: 1 });
    try {
      const s = await seedCompany(t.db);
      const wallet = await createWallet(
        t.db,
        masterKey,
        { companyId: s.companyId, name: 'hot', chain: 'ethereum', network: 'devnet' },
        shippedPlugins(),
      );
      const addr = await generateAddress(
        { db: t.db, masterKey, plugins: loadPlugins() },
        await t.db('wallets').where({ id: wallet.id }).first(),
        null,
      );
      first.start();
      await eventually(
        async () => lines.join(''),
        (l) => l.includes('"msg":"following"'),
      );
      second.start();
      await eventually(
        async () => lines.join(''),
        (l) => l.includes('standing by'),
      );
      const a = await anvil.send(addr.address, 10n);
      const seen = () => t.db('transfers').pluck('tx_hash');
      expect(await eventually(seen, (h) => h.includes(a))).toContain(a);
      await first.stop();
      const b = await anvil.send(addr.address, 20n);
      expect(await eventually(seen, (h) => h.includes(b))).toEqual(expect.arrayContaining([a, b]));
      expect((lines.join('').match(/"msg":"following"/g) ?? []).length).toBe(2);
    } finally {
      await first.stop();
      await second.stop();
      await anvil.stop();
      await t.drop();
    }
  });
});
