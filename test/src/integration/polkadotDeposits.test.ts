import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey, createLogger, registerPlugins } from '@walletd/core';
import { type DetectPool, createDetectPool, createFollower } from '@walletd/indexer';
import { createPolkadotPlugin } from '@walletd/plugin-polkadot';
import { createWallet, generateAddress } from '@walletd/server';
import { createKeyMulti } from '@polkadot/util-crypto';
import {
  type Chopsticks,
  type TestDatabase,
  createTestDatabase,
  seedCompany,
  startChopsticks,
  shippedPlugins,
} from '@walletd/test-harness';

const ROC = 10n ** 12n;
const USDT = 1984;

/**
 * Polkadot deposits end to end on a real runtime: chopsticks executes Rococo Asset Hub's runtime
 * (Balances, Assets, Utility) and builds the blocks; the plugin's reader frames each block with
 * its runtime's metadata and the follower decodes it in the Piscina pool. chopsticks' finalized
 * head always equals its best head, so under the default `finalized` rule a deposit is final on
 * arrival: these suites use `finality: confirmations` to show a deposit pending, then confirmed,
 * and a reorg retracting one that was not final yet.
 */
describe('Polkadot deposits through the follower (chopsticks, Rococo Asset Hub runtime)', () => {
  let t: TestDatabase;
  let node: Chopsticks;
  let pool: DetectPool;
  const masterKey = new MasterKey(randomBytes(32));
  const plugin = createPolkadotPlugin();
  const registry = registerPlugins([plugin as never]);

  beforeAll(async () => {
    t = await createTestDatabase();
    node = await startChopsticks();
    await node.createAsset(USDT, 1000n, 10n ** 12n);
    pool = createDetectPool(1);
  }, 180_000);
  afterAll(async () => {
    await pool?.close();
    await node?.stop();
    await t?.drop();
  });

  async function addresses(name: string) {
    const s = await seedCompany(t.db, 'paid', name);
    const wallet = await createWallet(
      t.db,
      masterKey,
      { companyId: s.companyId, name, chain: 'polkadot', network: 'localnet' },
      shippedPlugins(),
    );
    const row = await t.db('wallets').where({ id: wallet.id }).first();
    const a = await generateAddress({ db: t.db, masterKey, plugins: registry }, row, null);
    const b = await generateAddress({ db: t.db, masterKey, plugins: registry }, row, null);
    return { a, b };
  }
  const follow = (settings: Partial<ChainSettings>) =>
    createFollower({
      db: t.db,
      logger: createLogger({ level: 'silent' }),
      pool,
      plugin: plugin as never,
      settings: { chain: 'polkadot', network: 'localnet', rpcUrl: node.url, ...settings } as ChainSettings,
    });
  const rows = (addressIds: number[]) =>
    t
      .db('transfers')
      .whereIn('address_id', addressIds)
      .orderBy('id')
      .select('tx_hash', 'tx_key', 'event_index', 'amount', 'to_address', 'from_address', 'asset_key', 'event_type', 'status', 'reason');

  it('credits DOT and allow-listed asset transfers from emitted events only: an interrupted batch credits its first transfer, a failed extrinsic nothing', async () => {
    const { a, b } = await addresses('deposits');
    const { api, alice } = node;
    const f = follow({
      startBlock: Number(await node.head()) + 1,
      confirmations: 2,
      finality: 'confirmations',
      tokens: [{ contract: String(USDT), symbol: 'USDT', decimals: 6 }],
    });
    await node.createAsset(7, 1n, 10n ** 9n); // an asset nobody allow-listed
    const txs = [
      await node.sign(api.tx.balances.transferKeepAlive(a.address, 5n * ROC + 1n)),
      // Interrupted after its first call: the second transfer cannot be paid.
      await node.sign(
        api.tx.utility.batch([api.tx.balances.transferKeepAlive(b.address, ROC), api.tx.balances.transferKeepAlive(a.address, 10n ** 30n)]),
      ),
      // USDT here is not a sufficient asset: b exists by now (the batch paid it).
      await node.sign(api.tx.assets.transferKeepAlive(USDT, b.address, 2_500_000n)),
      // batchAll fails as a whole: its first transfer is rolled back with it.
      await node.sign(
        api.tx.utility.batchAll([
          api.tx.balances.transferKeepAlive(b.address, 3n * ROC),
          api.tx.balances.transferKeepAlive(a.address, 10n ** 30n),
        ]),
      ),
      // Not allow-listed: never credited.
      await node.sign(api.tx.assets.transferKeepAlive(7, a.address, 500n)),
    ];
    const block = await node.newBlock(txs);
    const events = await api.query.system.events.at(await api.rpc.chain.getBlockHash(block));
    const methods = events.map((e) => `${e.event.section}.${e.event.method}`);
    expect(methods).toContain('utility.BatchInterrupted');
    expect(methods).toContain('system.ExtrinsicFailed');

    // Each transfer's identity: the block and the hash of the extrinsic that carried it (as
    // polkadot.js computes it), which is in the block.
    const body = await api.rpc.chain.getBlock(await api.rpc.chain.getBlockHash(block));
    const at = (i: number) => {
      expect(body.block.extrinsics.findIndex((x) => x.toHex() === txs[i])).toBeGreaterThan(0);
      return `${block}-${api.createType('Extrinsic', txs[i]).hash.toHex()}`;
    };

    await f.tick();
    const expected = (status: string) => [
      [at(0), a.address, 'polkadot:localnet:roc', (5n * ROC + 1n).toString(), 'balances_transfer', status],
      [at(1), b.address, 'polkadot:localnet:roc', ROC.toString(), 'balances_transfer', status],
      [at(2), b.address, `polkadot:localnet:${USDT}`, '2500000', 'assets_transferred', status],
    ];
    const got = async () => (await rows([a.id, b.id])).map((r) => [r.tx_key, r.to_address, r.asset_key, r.amount, r.event_type, r.status]);
    expect(await got()).toEqual(expected('pending'));
    const first = (await rows([a.id]))[0];
    expect(first.from_address).toBe(alice.address);
    // The extrinsic hash, as polkadot.js computes it from the same bytes.
    expect(first.tx_hash).toBe(api.createType('Extrinsic', txs[0]).hash.toHex());

    await node.newBlock();
    await f.tick();
    expect(await got()).toEqual(expected('confirmed'));
  }, 120_000);

  it('retracts a deposit that was not final when a reorg (dev_setHead, then a block without it) removes it', async () => {
    const { a } = await addresses('reorg');
    const f = follow({ startBlock: Number(await node.head()) + 1, confirmations: 3, finality: 'confirmations' });
    await f.tick();
    const before = await node.head();
    await node.newBlock([await node.sign(node.api.tx.balances.transferKeepAlive(a.address, 7n * ROC))]);
    await f.tick();
    expect((await rows([a.id])).map((r) => r.status)).toEqual(['pending']);

    await node.setHead(before);
    await node.newBlock();
    await node.newBlock();
    await f.tick();
    expect((await rows([a.id])).map((r) => [r.status, r.reason])).toEqual([['rejected', 'reorg']]);
    await node.newBlock();
    await node.newBlock();
    await f.tick();
    expect((await rows([a.id])).map((r) => r.status)).toEqual(['rejected']);
    expect(f.stats().reorgs).toBe(1);
  }, 120_000);

  it('credits DOT a pallet moved for another origin (a proxy, a multisig) from its event; a failed call inside a proxy credits nothing', async () => {
    const { a, b } = await addresses('pallets');
    const { api, alice, keyring } = node;
    const bob = keyring.addFromUri('//Bob');
    // The account a 1-of-2 multisig of alice and bob dispatches from (pallet_multisig's derivation).
    const multi = keyring.encodeAddress(createKeyMulti([alice.address, bob.address], 1));
    await node.newBlock([
      await node.sign(api.tx.balances.transferKeepAlive(bob.address, 10n * ROC)),
      await node.sign(api.tx.balances.transferKeepAlive(multi, 10n * ROC)),
      await node.sign(api.tx.proxy.addProxy(bob.address, 'Any', 0)),
    ]);
    const f = follow({ startBlock: Number(await node.head()) + 1 });
    const block = await node.newBlock([
      // bob acting for alice: the transfer is alice's, dispatched by the proxy pallet.
      await node.sign(api.tx.proxy.proxy(alice.address, null, api.tx.balances.transferKeepAlive(a.address, 3n * ROC + 7n)), bob),
      // The proxied call fails (more than alice holds): the extrinsic succeeds, the transfer is rolled back.
      await node.sign(api.tx.proxy.proxy(alice.address, null, api.tx.balances.transferKeepAlive(b.address, 10n ** 30n)), bob),
      // The multisig account pays, dispatched by the multisig pallet.
      await node.sign(api.tx.multisig.asMultiThreshold1([bob.address], api.tx.balances.transferKeepAlive(a.address, 2n * ROC))),
    ]);
    const events = await api.query.system.events.at(await api.rpc.chain.getBlockHash(block));
    const executed = events.filter((e) => e.event.section === 'proxy' && e.event.method === 'ProxyExecuted');
    expect(executed.map((e) => (e.event.data[0] as unknown as { isOk: boolean }).isOk)).toEqual([true, false]);
    expect(events.filter((e) => e.event.section === 'system' && e.event.method === 'ExtrinsicFailed')).toHaveLength(0);

    await f.tick();
    expect((await rows([a.id, b.id])).map((r) => [r.to_address, r.amount, r.from_address, r.event_type, r.status])).toEqual([
      [a.address, (3n * ROC + 7n).toString(), alice.address, 'balances_transfer', 'confirmed'],
      [a.address, (2n * ROC).toString(), multi, 'balances_transfer', 'confirmed'],
    ]);
  }, 120_000);

  it('under the default finalized rule confirms at the node finalized head (equal to the best head on chopsticks)', async () => {
    const { a } = await addresses('finalized');
    const f = follow({ startBlock: Number(await node.head()) + 1 });
    await node.newBlock([await node.sign(node.api.tx.balances.transferKeepAlive(a.address, 2n * ROC))]);
    await f.tick();
    expect((await rows([a.id])).map((r) => [r.amount, r.status])).toEqual([[(2n * ROC).toString(), 'confirmed']]);
    const reader = plugin.createReader('polkadot', 'localnet', { rpcUrl: node.url });
    expect(await reader.finalized()).toBe(await reader.head());
    expect(await reader.blockHash(0n)).toBe(await node.rpc('chain_getBlockHash', [0]));
  }, 120_000);
});
