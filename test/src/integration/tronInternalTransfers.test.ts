import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { type ChainSettings, MasterKey, createLogger, registerPlugins } from '@walletd/core';
import { type DetectPool, createDetectPool, createFollower } from '@walletd/indexer';
import { INTERNAL_EVENT_BASE, createTronPlugin } from '@walletd/plugin-tron';
import { createWallet, generateAddress } from '@walletd/server';
import {
  type RecordedTronNode,
  type TestDatabase,
  call,
  createTestDatabase,
  seedCompany,
  shippedPlugins,
  startRecordedTronNode,
  startTestApp,
  tronBase58,
} from '@walletd/test-harness';

/**
 * TRX that contracts send (java-tron's `internal_transactions`, kept with `vm.saveInternalTx`)
 * through the real follower and the API, against the recorded-response server. The server
 * executes nothing: what a call sent, and whether a frame reverted, is the test's choice; the
 * infos have the shape of a real java-tron 4.8.2 answer (test/fixtures/tron/tron-privnet-internal-tx-7c44d197.json).
 */
describe('Tron internal transactions (TRX sent by contracts) through the follower and the API', () => {
  let t: TestDatabase;
  let pool: DetectPool;
  let node: RecordedTronNode;
  const masterKey = new MasterKey(randomBytes(32));
  const registry = registerPlugins([createTronPlugin() as never]);
  /** The forwarder: the contract of the recorded answer. */
  const FORWARDER = tronBase58('41a4de5410785ffffc7c210f126f7534d868c2ecc9');

  beforeAll(async () => {
    t = await createTestDatabase();
    pool = createDetectPool(1);
  });
  afterAll(async () => {
    await pool.close();
    await t.drop();
  });
  afterEach(async () => {
    await node?.close();
  });

  const follower = (network: string, settings: Omit<ChainSettings, 'chain' | 'network'>, logs?: string[]) =>
    createFollower({
      db: t.db,
      logger: logs
        ? createLogger({
            level: 'info',
            destination: new Writable({
              write(c, _e, cb) {
                logs.push(String(c));
                cb();
              },
            }),
          })
        : createLogger({ level: 'silent' }),
      pool,
      plugin: registry.forChain('tron')!,
      settings: { chain: 'tron', network, ...settings },
    });
  async function wallet(network: string) {
    const s = await seedCompany(t.db);
    const w = await createWallet(t.db, masterKey, { companyId: s.companyId, name: 'tron', chain: 'tron', network }, shippedPlugins());
    const row = await t.db('wallets').where({ id: w.id }).first();
    return { s, row, address: () => generateAddress({ db: t.db, masterKey, plugins: registry }, row, null) };
  }
  const transfers = (walletId: number) =>
    t
      .db('transfers')
      .where({ wallet_id: walletId })
      .orderBy(['tx_hash', 'event_index'])
      .select('tx_hash', 'event_index', 'asset_key', 'amount', 'from_address', 'to_address', 'status', 'event_type');
  const events = async (companyId: number) =>
    ((await t.db('events').where({ company_id: companyId }).orderBy('seq').select('type', 'body')) as { type: string; body: string }[]).map(
      (e) => ({ type: e.type, data: JSON.parse(e.body).data }),
    );

  it('credits TRX a contract sent to a deposit address once, to the sun; never a rejected internal transaction or a reverted call', async () => {
    node = await startRecordedTronNode({ head: 1000, solidLag: 2 });
    const { s, row, address } = await wallet('devnet');
    const a = await address();
    const b = await address();
    const c = await address();
    const f = follower('devnet', { rpcUrl: node.url, startBlock: 1001 });

    // One call paying three addresses: a (kept), b (its frame reverted: rejected), an outsider.
    const paid = node.payViaContract(FORWARDER, [
      { to: a.address, amount: 2_500_001n },
      { to: b.address, amount: 1_000_000n, rejected: true },
      { to: 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre', amount: 9_000_000n },
    ]);
    // A call that reverted as a whole: java-tron marks its internal transactions rejected.
    node.payViaContract(FORWARDER, [{ to: c.address, amount: 3_000_000n }], 'REVERT');
    const block = node.mine();
    await f.tick();
    await f.tick();

    const expected = {
      tx_hash: paid,
      event_index: INTERNAL_EVENT_BASE,
      asset_key: 'tron:devnet:trx',
      amount: '2500001',
      from_address: FORWARDER,
      to_address: a.address,
      event_type: 'internal_transfer',
    };
    expect(await transfers(row.id)).toEqual([{ ...expected, status: 'pending' }]);
    node.mine(2);
    expect(node.solid()).toBe(block);
    await f.tick();
    expect(await transfers(row.id)).toEqual([{ ...expected, status: 'confirmed' }]);
    const announced = (await events(s.companyId)).filter((e) => e.type.startsWith('deposit.'));
    expect(announced.map((e) => [e.type, e.data.txHash, e.data.amount, e.data.toAddress])).toEqual([
      ['deposit.detected', paid, '2.500001', a.address],
      ['deposit.confirmed', paid, '2.500001', a.address],
    ]);

    // The same through the HTTP API: the balance counts it like any deposit.
    const app = await startTestApp(t.db, { chains: [{ chain: 'tron', network: 'devnet', rpcUrl: node.url }] }, masterKey);
    try {
      const balances = await call(app.url, 'GET', `/v1/wallets/${row.id}/balances`, { key: s.rootKey });
      expect(balances.status).toBe(200);
      expect(balances.body.balances.find((x: { asset: { symbol: string } }) => x.asset.symbol === 'TRX')).toMatchObject({
        confirmed: '2.500001',
        pending: '0',
        available: '2.500001',
      });
      const found = await call(app.url, 'GET', `/v1/transactions?search=${paid}`, { key: s.rootKey });
      expect(found.body.transactions.map((x: { eventIndex: number; amount: string }) => [x.eventIndex, x.amount])).toEqual([
        [INTERNAL_EVENT_BASE, '2.500001'],
      ]);
    } finally {
      await app.close();
    }
  });

  it('with internalTransfers "off" reads none, and says so once in the log', async () => {
    node = await startRecordedTronNode({ head: 2000, solidLag: 0 });
    const { row, address } = await wallet('nile');
    const a = await address();
    const logs: string[] = [];
    const f = follower('nile', { rpcUrl: node.url, startBlock: 2001, internalTransfers: 'off' }, logs);
    node.payViaContract(FORWARDER, [{ to: a.address, amount: 2_000_000n }]);
    node.mine();
    await f.tick();
    await f.tick();
    expect(await transfers(row.id)).toEqual([]);
    const said = logs.filter((l) => l.includes('internalTransfers is off'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('tron/nile');
  });
});
