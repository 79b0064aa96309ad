import { randomBytes } from 'node:crypto';
import { getAddress } from 'ethers';
import { MasterKey, createLogger, createMetrics, registerPlugins } from '@walletd/core';
import { type DetectPool, createDetectPool, createFollower } from '@walletd/indexer';
import { createEvmPlugin } from '@walletd/plugin-evm';
import { validator } from '@walletd/schemas';
import { createWallet, generateAddress, loadPlugins } from '@walletd/server';
import {
  type Anvil,
  type TestDatabase,
  call,
  createTestDatabase,
  deployPayouts,
  seedCompany,
  shippedPlugins,
  startAnvil,
  startTestApp,
} from '@walletd/test-harness';

/** 2^30: internal transfers' eventIndex is this + the frame's depth-first position in its transaction. */
const BASE = 2 ** 30;
const ETH = 10n ** 18n;

/**
 * Issue 41 §1 on a real anvil: native coins that contracts send (a forwarder, a batch payout, a
 * Safe-like execTransaction) are credited once each from the block's call traces, with exact
 * amounts, events, ledger and API; a value call inside a caught revert, a DELEGATECALL frame and a
 * reverted transaction are not.
 */
describe('EVM internal transfers on anvil', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  const masterKey = new MasterKey(randomBytes(32));
  const registry = registerPlugins([createEvmPlugin()]);

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    pool = createDetectPool(1);
  });
  afterAll(async () => {
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  const settings = { chain: 'ethereum', network: 'devnet', rpcUrl: '', confirmations: 1, startBlock: 0 };
  const follower = (confirmations = 1) =>
    createFollower({
      db: t.db,
      logger: createLogger({ level: 'silent' }),
      pool,
      metrics: createMetrics(),
      plugin: registry.forChain('ethereum')!,
      settings: { ...settings, rpcUrl: anvil.url, confirmations },
    });
  const events = async (type: string) =>
    (await t.db('events').where({ type }).orderBy('seq').pluck('body')).map((b: string) => JSON.parse(b).data);

  it('credits a forwarder, a batch payout to 5 addresses and a Safe-like execTransaction once each; never a caught revert, a DELEGATECALL frame or a reverted transaction', async () => {
    const s = await seedCompany(t.db);
    const w = await createWallet(
      t.db,
      masterKey,
      { companyId: s.companyId, name: 'hot', chain: 'ethereum', network: 'devnet' },
      shippedPlugins(),
    );
    const row = await t.db('wallets').where({ id: w.id }).first();
    const addrs: string[] = [];
    for (let i = 0; i < 7; i++) addrs.push((await generateAddress({ db: t.db, masterKey, plugins: loadPlugins() }, row, null)).address);
    const [a0, a1, a2, a3, a4, a5, a6] = addrs as [string, string, string, string, string, string, string];
    const payouts = await deployPayouts(anvil);
    await anvil.send(payouts.address, ETH);

    const forward = await payouts.forward(a0, ETH / 10n);
    const batch = await payouts.batch(
      [a1, a2, a3, a4, a5],
      [1n, 2n, 3n, 4n, 5n].map((k) => (k * ETH) / 100n),
    );
    const exec = await payouts.execTransaction(a6, (7n * ETH) / 100n);
    const caught = await payouts.payThenCatch(a0);
    const delegated = await payouts.delegateTo(a1, (6n * ETH) / 1000n);
    const failed = await payouts.payThenFail(a2, (4n * ETH) / 1000n);
    expect((await anvil.receipt(caught)).status).toBe('0x1');
    expect((await anvil.receipt(delegated)).status).toBe('0x1');
    expect((await anvil.receipt(failed)).status).toBe('0x0');
    await follower().tick();

    const rows = await t
      .db('transfers')
      .orderBy('id')
      .select('tx_hash', 'event_index', 'amount', 'to_address', 'from_address', 'event_type', 'status');
    expect(rows.map((r) => [r.tx_hash, r.event_index, r.to_address, r.amount, r.event_type, r.status])).toEqual([
      [forward, BASE + 1, a0, '100000000000000000', 'internal_transfer', 'confirmed'],
      [batch, BASE + 1, a1, '10000000000000000', 'internal_transfer', 'confirmed'],
      [batch, BASE + 2, a2, '20000000000000000', 'internal_transfer', 'confirmed'],
      [batch, BASE + 3, a3, '30000000000000000', 'internal_transfer', 'confirmed'],
      [batch, BASE + 4, a4, '40000000000000000', 'internal_transfer', 'confirmed'],
      [batch, BASE + 5, a5, '50000000000000000', 'internal_transfer', 'confirmed'],
      [exec, BASE + 1, a6, '70000000000000000', 'internal_transfer', 'confirmed'],
    ]);
    // The node agrees, to the wei: 0.32 ETH arrived on the 7 addresses.
    const onNode = await Promise.all(addrs.map(async (a) => BigInt(await anvil.rpc<string>('eth_getBalance', [a, 'latest']))));
    expect(onNode.reduce((x, y) => x + y, 0n)).toBe((32n * ETH) / 100n);
    expect(rows.map((r) => BigInt(r.amount))).toEqual(onNode);

    const confirmed = await events('deposit.confirmed');
    expect(confirmed.map((d: { txHash: string; eventIndex: number; amount: string }) => [d.txHash, d.eventIndex, d.amount])).toEqual([
      [forward, BASE + 1, '0.1'],
      [batch, BASE + 1, '0.01'],
      [batch, BASE + 2, '0.02'],
      [batch, BASE + 3, '0.03'],
      [batch, BASE + 4, '0.04'],
      [batch, BASE + 5, '0.05'],
      [exec, BASE + 1, '0.07'],
    ]);
    expect(confirmed[0]).toMatchObject({
      eventType: 'internal_transfer',
      fromAddress: getAddress(payouts.address),
      toAddress: a0,
      direction: 'incoming',
    });
    expect((await events('deposit.detected')).length).toBe(7);

    // A restart and a rescan from genesis read the same frames under the same eventIndex: nothing twice.
    await follower().rescanFrom(0n);
    expect(await t.db('transfers').count('* as n')).toEqual([{ n: 7 }]);
    expect((await events('deposit.detected')).length).toBe(7);

    // The same through the HTTP API: the ledger's available balance and the transaction list.
    const app = await startTestApp(t.db, { chains: [{ chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url }] }, masterKey);
    try {
      const balances = await call(app.url, 'GET', `/v1/wallets/${w.id}/balances?onchain=true`, { key: s.rootKey });
      expect(validator('Balances')(balances.body)).toBe(true);
      expect(balances.body.balances).toEqual([
        {
          asset: { key: 'ethereum:devnet:eth', symbol: 'ETH', decimals: 18, contractAddress: null },
          confirmed: '0.32',
          pending: '0',
          reserved: '0',
          available: '0.32',
          onchain: '0.32',
          onchainSpendable: '0.32',
        },
      ]);
      const found = await call(app.url, 'GET', `/v1/transactions?search=${batch}`, { key: s.rootKey });
      expect(validator('TransactionList')(found.body)).toBe(true);
      expect(
        found.body.transactions.map((x: { eventIndex: number; amount: string; eventType: string }) => [
          x.eventIndex,
          x.amount,
          x.eventType,
        ]),
      ).toEqual([
        [BASE + 5, '0.05', 'internal_transfer'],
        [BASE + 4, '0.04', 'internal_transfer'],
        [BASE + 3, '0.03', 'internal_transfer'],
        [BASE + 2, '0.02', 'internal_transfer'],
        [BASE + 1, '0.01', 'internal_transfer'],
      ]);
    } finally {
      await app.close();
    }
  });

  it('an internal transfer that a reorg removes is retracted like any deposit (deposit.rejected, reason reorg)', async () => {
    const s = await seedCompany(t.db);
    const w = await createWallet(
      t.db,
      masterKey,
      { companyId: s.companyId, name: 'reorg', chain: 'ethereum', network: 'devnet' },
      shippedPlugins(),
    );
    const row = await t.db('wallets').where({ id: w.id }).first();
    const to = (await generateAddress({ db: t.db, masterKey, plugins: loadPlugins() }, row, null)).address;
    const payouts = await deployPayouts(anvil);
    const f = follower(3);
    await f.tick();
    const snapshot = await anvil.rpc<string>('evm_snapshot');
    const forward = await payouts.forward(to, 42_000n);
    await f.tick();
    expect(await t.db('transfers').where({ tx_hash: forward }).select('event_index', 'amount', 'status')).toEqual([
      { event_index: BASE + 1, amount: '42000', status: 'pending' },
    ]);
    // The block is replaced by a longer branch without the transaction.
    await anvil.rpc('evm_revert', [snapshot]);
    await anvil.mine(3);
    await f.tick();
    expect(await t.db('transfers').where({ tx_hash: forward }).first('status')).toEqual({ status: 'rejected' });
    const rejected = (await events('deposit.rejected')).filter((d: { txHash: string }) => d.txHash === forward);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({
      eventIndex: BASE + 1,
      amount: '0.000000000000042',
      reason: 'reorg',
      eventType: 'internal_transfer',
    });
  });
});
