import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey, fromBaseUnits, registerPlugins } from '@walletd/core';
import { createDetectPool, type DetectPool, type Follower } from '@walletd/indexer';
import { addressOfScript, createUtxoPlugin, utxoMatchKey, utxoNetwork } from '@walletd/plugin-utxo';
import { createWallet, generateAddress, loadPlugins } from '@walletd/server';
import {
  type RegtestNode,
  type TestDatabase,
  createTestDatabase,
  describeWithLitecoind,
  seedCompany,
  startLitecoind,
  expectSchema,
  testFollower,
  shippedPlugins,
  asLitecoind,
} from '@walletd/test-harness';

/**
 * Bitcoin-family deposits from blocks on a real regtest node (litecoind: the Bitcoin Core RPC and
 * transaction formats). A bitcoin/regtest wallet takes a native segwit deposit, a dogecoin/regtest
 * wallet a legacy P2PKH one, both seen first in the mempool. A reorg that mines the deposit again
 * is followed without a duplicate; a replaced (double-spent) transaction is rejected:
 * `mempool_dropped` if it was never mined, `reorg` if a reorg removed its block.
 */
describeWithLitecoind('UTXO deposits on a regtest node', () => {
  let t: TestDatabase;
  let node: RegtestNode;
  let pool: DetectPool;
  const masterKey = new MasterKey(randomBytes(32));
  const registry = registerPlugins([createUtxoPlugin()]);
  const followers: Follower[] = [];
  const events = async (type: string) =>
    (await t.db('events').where({ type }).orderBy('seq').pluck('body')).map((b: string) => JSON.parse(b));
  const tick = async () => {
    for (const f of followers) await f.tick();
  };
  /** The node prints litecoin's regtest encodings: the same output script, its own bech32 prefix. */
  const nodeAddress = (chain: 'bitcoin' | 'dogecoin', address: string) => {
    const net = utxoNetwork(chain, 'regtest');
    const script = Buffer.from(utxoMatchKey(chain, 'regtest', address), 'hex');
    return addressOfScript(asLitecoind(net), script) as string;
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    node = await startLitecoind();
    pool = createDetectPool(1);
    const height = await node.rpc<number>('getblockcount');
    for (const chain of ['bitcoin', 'dogecoin'] as const) {
      const settings: ChainSettings = { chain, network: 'regtest', rpcUrl: node.url, confirmations: 2, startBlock: height + 1 };
      followers.push(testFollower(t.db, pool, settings));
    }
  });
  afterAll(async () => {
    await pool.close();
    await node.stop();
    await t.drop();
  });

  it('sees a segwit and a legacy deposit in the mempool (0 confirmations), confirms them at the threshold with exact amounts', async () => {
    const s = await seedCompany(t.db);
    const address = async (chain: 'bitcoin' | 'dogecoin') => {
      const w = await createWallet(t.db, masterKey, { companyId: s.companyId, name: chain, chain, network: 'regtest' }, shippedPlugins());
      return generateAddress({ db: t.db, masterKey, plugins: loadPlugins() }, await t.db('wallets').where({ id: w.id }).first(), null);
    };
    const segwit = await address('bitcoin');
    const legacy = await address('dogecoin');
    expect(segwit.address).toMatch(/^bcrt1q/);
    expect(legacy.address).toMatch(/^[mn]/);

    const toSegwit = await node.rpc<string>('sendtoaddress', [nodeAddress('bitcoin', segwit.address), '1.23456789']);
    const toLegacy = await node.rpc<string>('sendtoaddress', [nodeAddress('dogecoin', legacy.address), '0.5']);
    await tick();
    const detected = await events('deposit.detected');
    expect(detected.map((e) => [e.chain, e.data.txHash, e.data.amount, e.data.toAddress, e.data.confirmations])).toEqual([
      ['bitcoin', toSegwit, '1.23456789', segwit.address, 0],
      ['dogecoin', toLegacy, '0.5', legacy.address, 0],
    ]);
    expect(await t.db('transfers').whereIn('tx_hash', [toSegwit, toLegacy]).pluck('block_number')).toEqual([null, null]);
    // Mined: attached to its block, announced nothing new, pending until 2 confirmations.
    const [block] = await node.mine(1);
    await tick();
    expect(await events('deposit.detected')).toHaveLength(2);
    expect(await t.db('transfers').whereIn('tx_hash', [toSegwit, toLegacy]).pluck('block_hash')).toEqual([block, block]);
    const tx = await node.rpc<{ vout: { n: number; scriptPubKey: { hex: string } }[] }>('getrawtransaction', [toSegwit, true]);
    const vout = tx.vout.find((o) => o.scriptPubKey.hex === utxoMatchKey('bitcoin', 'regtest', segwit.address))?.n;
    expect(detected[0].data).toMatchObject({ eventType: 'utxo_output', logIndex: vout, eventIndex: vout, status: 'pending' });
    expect(detected[0].data.outputs).toContainEqual({ address: segwit.address, amount: '1.23456789' });
    for (const e of detected) expectSchema('EventEnvelope', e);
    expect(await events('deposit.confirmed')).toHaveLength(0);

    expect(await events('deposit.confirmed')).toHaveLength(0);
    await node.mine(1);
    await tick();
    const confirmed = await events('deposit.confirmed');
    expect(confirmed.map((e) => [e.data.txHash, e.data.amount, e.data.confirmations])).toEqual([
      [toSegwit, '1.23456789', 2],
      [toLegacy, '0.5', 2],
    ]);
    // The node agrees with the indexed amount (scantxoutset over the output script).
    const reader = registry.forChain('bitcoin')!.createReader('bitcoin', 'regtest', { rpcUrl: node.url });
    const asset = { key: 'bitcoin:regtest:btc', symbol: 'BTC', decimals: 8, contractAddress: null };
    expect(fromBaseUnits((await reader.getBalance(segwit.address, asset)).total, 8)).toBe('1.23456789');
  });

  it('follows a reorg that mines the deposit again in another block: one detection, one confirmation', async () => {
    const s = await seedCompany(t.db, 'paid', 'Reorg Inc');
    const w = await createWallet(
      t.db,
      masterKey,
      { companyId: s.companyId, name: 'r', chain: 'bitcoin', network: 'regtest' },
      shippedPlugins(),
    );
    const a = await generateAddress(
      { db: t.db, masterKey, plugins: loadPlugins() },
      await t.db('wallets').where({ id: w.id }).first(),
      null,
    );
    const txid = await node.rpc<string>('sendtoaddress', [nodeAddress('bitcoin', a.address), '0.3']);
    const [first] = await node.mine(1);
    await tick();
    const row = async () => t.db('transfers').where({ tx_hash: txid }).first('block_hash', 'status');
    expect(await row()).toMatchObject({ block_hash: first, status: 'pending' });

    // The block is invalidated; the transaction goes back to the mempool and lands in a new block.
    await node.rpc('invalidateblock', [first]);
    const [second] = await node.mine(1);
    expect(second).not.toBe(first);
    await tick();
    expect(await row()).toMatchObject({ block_hash: second, status: 'pending' });
    await node.mine(1);
    await tick();
    const mine = async (type: string) => (await events(type)).filter((e) => e.data.txHash === txid);
    expect((await mine('deposit.detected')).map((e) => e.data.amount)).toEqual(['0.3']);
    expect((await mine('deposit.confirmed')).map((e) => e.data.amount)).toEqual(['0.3']);
    expect(await mine('deposit.rejected')).toEqual([]);
  });

  it('rejects a mempool deposit double-spent by a replacement (RBF) with mempool_dropped, and follows the replacement', async () => {
    const s = await seedCompany(t.db, 'paid', 'Mempool Ltd');
    const w = await createWallet(
      t.db,
      masterKey,
      { companyId: s.companyId, name: 'm', chain: 'bitcoin', network: 'regtest' },
      shippedPlugins(),
    );
    const a = await generateAddress(
      { db: t.db, masterKey, plugins: loadPlugins() },
      await t.db('wallets').where({ id: w.id }).first(),
      null,
    );
    const original = await node.rpc<string>('sendtoaddress', [nodeAddress('bitcoin', a.address), '0.7']);
    await tick();
    const mine = async (type: string, txid: string) => (await events(type)).filter((e) => e.data.txHash === txid);
    expect((await mine('deposit.detected', original)).map((e) => e.data.confirmations)).toEqual([0]);

    // A conflicting transaction spends the same inputs with a higher fee: the original can never be mined.
    const { txid: replacement } = await node.rpc<{ txid: string }>('bumpfee', [original]);
    expect(await node.rpc<string[]>('getrawmempool')).not.toContain(original);
    await tick();
    const dropped = await mine('deposit.rejected', original);
    expect(dropped.map((e) => [e.data.status, e.data.reason, e.data.amount])).toEqual([['rejected', 'mempool_dropped', '0.7']]);
    expect((await mine('deposit.detected', replacement)).map((e) => [e.data.amount, e.data.confirmations])).toEqual([['0.7', 0]]);

    await node.mine(2);
    await tick();
    expect((await mine('deposit.confirmed', replacement)).map((e) => e.data.amount)).toEqual(['0.7']);
    expect(await mine('deposit.confirmed', original)).toEqual([]);
  });

  it('retracts a mined deposit (reason reorg) when a reorg removes its block and a conflicting transaction replaces it', async () => {
    const s = await seedCompany(t.db, 'paid', 'Invalidated plc');
    const w = await createWallet(
      t.db,
      masterKey,
      { companyId: s.companyId, name: 'i', chain: 'bitcoin', network: 'regtest' },
      shippedPlugins(),
    );
    const a = await generateAddress(
      { db: t.db, masterKey, plugins: loadPlugins() },
      await t.db('wallets').where({ id: w.id }).first(),
      null,
    );
    const original = await node.rpc<string>('sendtoaddress', [nodeAddress('bitcoin', a.address), '0.4']);
    const [block] = await node.mine(1);
    await tick();
    await node.rpc('invalidateblock', [block]);
    const { txid: replacement } = await node.rpc<{ txid: string }>('bumpfee', [original]);
    await node.mine(2);
    await tick();
    const mine = async (type: string, txid: string) => (await events(type)).filter((e) => e.data.txHash === txid);
    expect((await mine('deposit.rejected', original)).map((e) => e.data.reason)).toEqual(['reorg']);
    expect((await mine('deposit.detected', replacement)).map((e) => e.data.amount)).toEqual(['0.4']);
    expect(await mine('deposit.confirmed', original)).toEqual([]);
  });

  it('retracts a CONFIRMED deposit a deeper reorg removed for a conflicting spend: rejected, reason reorg, previousStatus confirmed', async () => {
    const s = await seedCompany(t.db, 'paid', 'Deep Reorg SA');
    const w = await createWallet(
      t.db,
      masterKey,
      { companyId: s.companyId, name: 'd', chain: 'bitcoin', network: 'regtest' },
      shippedPlugins(),
    );
    const a = await generateAddress(
      { db: t.db, masterKey, plugins: loadPlugins() },
      await t.db('wallets').where({ id: w.id }).first(),
      null,
    );
    const original = await node.rpc<string>('sendtoaddress', [nodeAddress('bitcoin', a.address), '0.8']);
    const [block] = await node.mine(2);
    await tick();
    const mine = async (type: string, txid: string) => (await events(type)).filter((e) => e.data.txHash === txid);
    expect((await mine('deposit.confirmed', original)).map((e) => e.data.amount)).toEqual(['0.8']);
    const credited = async () =>
      (await t.db('balance_ledger').where({ wallet_id: w.id, address: '', asset_key: 'bitcoin:regtest:btc' }).first('confirmed'))
        ?.confirmed;
    expect(await credited()).toBe('80000000');

    // Both blocks go; the funding inputs are spent again by a conflicting transaction on a longer branch.
    await node.rpc('invalidateblock', [block]);
    const { txid: replacement } = await node.rpc<{ txid: string }>('bumpfee', [original]);
    await node.mine(3);
    await tick();
    const retracted = await mine('deposit.rejected', original);
    expect(retracted.map((e) => [e.data.reason, e.data.previousStatus, e.data.amount])).toEqual([['reorg', 'confirmed', '0.8']]);
    expectSchema('DepositEventData', retracted[0].data);
    expect(await t.db('transfers').where({ tx_hash: original }).first('status', 'block_number', 'confirmations')).toEqual({
      status: 'rejected',
      block_number: null,
      confirmations: 0,
    });
    // The conflicting spend is a deposit of its own, announced as new; the retracted one is credited no more.
    expect((await mine('deposit.detected', replacement)).map((e) => e.data.amount)).toEqual(['0.8']);
    expect((await mine('deposit.confirmed', replacement)).map((e) => e.data.amount)).toEqual(['0.8']);
    expect(await credited()).toBe('80000000');
  });
});
