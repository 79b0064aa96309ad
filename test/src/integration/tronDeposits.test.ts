import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey, createLogger, registerPlugins } from '@walletd/core';
import { type DetectPool, createDetectPool, createFollower } from '@walletd/indexer';
import { createTronPlugin } from '@walletd/plugin-tron';
import { createWallet, generateAddress } from '@walletd/server';
import {
  PAYER,
  type RecordedTronNode,
  type TestDatabase,
  USDT,
  createTestDatabase,
  seedCompany,
  startRecordedTronNode,
  tronFixture,
  shippedPlugins,
} from '@walletd/test-harness';

/**
 * The real follower (worker-thread detection, shared watched set, store, events) on the Tron
 * plugin against the recorded-response server. It proves how walletd reads and judges java-tron's
 * answers; it cannot prove what a node would execute (the server runs no contract: a call's outcome
 * is the test's choice).
 */
describe('Tron deposits through the follower, against the recorded-response server', () => {
  let t: TestDatabase;
  let pool: DetectPool;
  const masterKey = new MasterKey(randomBytes(32));
  const plugin = createTronPlugin();
  const registry = registerPlugins([plugin as never]);
  /** Another contract emitting the same Transfer logs (a look-alike "USDT"). */
  const LOOKALIKE = 'TTmaAAbFPtACn1amP3FBkmmUygFh8udAvA';

  beforeAll(async () => {
    t = await createTestDatabase();
    pool = createDetectPool(1);
  });
  afterAll(async () => {
    await pool.close();
    await t.drop();
  });

  // Each test follows its own network: a chain's cursor is shared by everything on it.
  const follower = (network: string, settings: Omit<ChainSettings, 'chain' | 'network'>) =>
    createFollower({
      db: t.db,
      logger: createLogger({ level: 'silent' }),
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
      .orderBy(['block_number', 'tx_hash', 'event_index'])
      .select('tx_hash', 'event_index', 'asset_key', 'amount', 'from_address', 'to_address', 'status', 'event_type');
  const events = async (companyId: number) =>
    ((await t.db('events').where({ company_id: companyId }).orderBy('seq').select('type', 'body')) as { type: string; body: string }[]).map(
      (e) => ({ type: e.type, data: JSON.parse(e.body).data }),
    );

  let node: RecordedTronNode;
  afterEach(async () => {
    await node?.close();
  });

  it('credits TRX and allow-listed USDT only; never a look-alike, a reverted or out-of-energy call, or a call without a log; final only once solidified', async () => {
    node = await startRecordedTronNode({ head: 1000, solidLag: 5 });
    const { s, row, address } = await wallet('devnet');
    const a = await address();
    const b = await address();
    expect(a.address).toMatch(/^T/);
    const f = follower('devnet', { rpcUrl: node.url, startBlock: 1001, tokens: [{ contract: USDT, symbol: 'USDT', decimals: 6 }] });

    const trx = node.payTrx(a.address, 5_000_000n, { memo: 'order 9' });
    const usdt = node.payTrc20(USDT, a.address, 7_000_000n);
    node.payTrc20(LOOKALIKE, a.address, 9_000_000n); // a SUCCESS Transfer log, from a contract not allow-listed
    node.payTrc20(USDT, b.address, 3_000_000n, 'REVERT');
    node.payTrc20(USDT, b.address, 4_000_000n, 'OUT_OF_ENERGY');
    node.payTrc20(USDT, b.address, 5_000_000n, 'NO_LOG'); // calldata names b; the contract emitted nothing
    node.payTrx(b.address, 6_000_000n, { contractRet: 'REVERT' });
    const block = node.mine();
    await f.tick();

    const usdtKey = 'tron:devnet:a614f803b6fd780986a42c78ec9c7f77e6ded13c';
    expect(await transfers(row.id)).toEqual(
      [
        {
          tx_hash: trx,
          event_index: 0,
          asset_key: 'tron:devnet:trx',
          amount: '5000000',
          from_address: PAYER.address,
          to_address: a.address,
          status: 'pending',
          event_type: 'native_transfer',
        },
        {
          tx_hash: usdt,
          event_index: 1,
          asset_key: usdtKey,
          amount: '7000000',
          from_address: PAYER.address,
          to_address: a.address,
          status: 'pending',
          event_type: 'trc20_transfer',
        },
      ].sort((x, y) => x.tx_hash.localeCompare(y.tx_hash)),
    );
    const detected = (await events(s.companyId)).filter((e) => e.type === 'deposit.detected');
    expect(detected.map((e) => [e.data.txHash, e.data.amount, e.data.asset.symbol, e.data.toAddress])).toEqual(
      expect.arrayContaining([
        [trx, '5', 'TRX', a.address],
        [usdt, '7', 'USDT', a.address],
      ]),
    );
    expect(detected).toHaveLength(2);
    expect(detected.find((e) => e.data.txHash === trx)?.data.memo).toBe('order 9');

    // Three blocks deep, but the solidified block (5 behind the head) does not cover it yet.
    node.mine(2);
    expect(node.solid()).toBeLessThan(block);
    await f.tick();
    expect((await transfers(row.id)).map((x) => x.status)).toEqual(['pending', 'pending']);

    node.mine(3);
    expect(node.solid()).toBe(block);
    await f.tick();
    expect((await transfers(row.id)).map((x) => x.status)).toEqual(['confirmed', 'confirmed']);
    const confirmed = (await events(s.companyId)).filter((e) => e.type === 'deposit.confirmed');
    expect(confirmed.map((e) => e.data.txHash).sort()).toEqual([trx, usdt].sort());
  });

  it("never pairs a block with another block's receipts of the same height and count: refused, then read from its own", async () => {
    node = await startRecordedTronNode({ head: 3000, solidLag: 0 });
    const { row, address } = await wallet('shasta');
    const a = await address();
    const f = follower('shasta', { rpcUrl: node.url, startBlock: 3001, tokens: [{ contract: USDT, symbol: 'USDT', decimals: 6 }] });
    const usdt = node.payTrc20(USDT, a.address, 7_000_000n);
    const height = node.mine();
    // The receipts of another fork's block at this height (made in another slot) that executed the
    // same transaction with another outcome: 70 USDT in its Transfer log.
    node.answerInfosOnce(height, (infos) =>
      infos.map((info) => ({
        ...info,
        blockTimeStamp: Number(info.blockTimeStamp) + 3000,
        log: (info.log as { data: string }[]).map((l) => ({ ...l, data: (70_000_000).toString(16).padStart(64, '0') })),
      })),
    );
    await expect(f.tick()).rejects.toThrow(/belong to another block/);
    expect(await transfers(row.id)).toEqual([]);
    await f.tick();
    expect((await transfers(row.id)).map((x) => [x.tx_hash, x.amount])).toEqual([[usdt, '7000000']]);
  });

  it('with finality "confirmations", the operator threshold decides instead of the solidified block', async () => {
    node = await startRecordedTronNode({ head: 2000, solidLag: 50 });
    const { row, address } = await wallet('nile');
    const a = await address();
    const f = follower('nile', { rpcUrl: node.url, startBlock: 2001, finality: 'confirmations', confirmations: 3 });
    node.payTrx(a.address, 1_000_000n);
    node.mine(2);
    await f.tick();
    expect((await transfers(row.id)).map((x) => x.status)).toEqual(['pending']);
    node.mine();
    await f.tick();
    expect((await transfers(row.id)).map((x) => x.status)).toEqual(['confirmed']);
  });

  it('indexes the recorded mainnet block 30864544 at its own height: its 50 TRX transfer, exactly', async () => {
    const fixture = tronFixture('tron-mainnet-block-30864544.json');
    const expected = fixture.expected.transfers[0];
    node = await startRecordedTronNode({ head: 30864543, time: fixture.expected.timestampMs - 3000, solidLag: 0 });
    const tx = fixture.data.transactions[0];
    // Not recorded with the block: its transaction info, in the recorded shape of a TRX transfer's info.
    node.placeRecordedBlock(fixture.data, [
      {
        id: tx.txID,
        blockNumber: 30864544,
        blockTimeStamp: fixture.expected.timestampMs,
        contractResult: [''],
        receipt: { net_usage: 267 },
      },
    ]);
    node.mine();
    const { row } = await wallet('mainnet');
    // As if the company held the recipient: its address row, in the plugin's match form.
    await t.db('addresses').insert({
      company_id: row.company_id,
      wallet_id: row.id,
      chain: 'tron',
      network: 'mainnet',
      address: expected.to,
      match_key: plugin.matchKey('tron', 'mainnet', expected.to),
      derivation_index: 1000,
      derivation_path: "m/44'/195'/0'/0/1000",
      kind: 'deposit',
    });
    const f = follower('mainnet', { rpcUrl: node.url, startBlock: 30864544 });
    await f.tick();
    expect(await transfers(row.id)).toEqual([
      {
        tx_hash: expected.txID,
        event_index: 0,
        asset_key: 'tron:mainnet:trx',
        amount: expected.amountSun,
        from_address: expected.from,
        to_address: expected.to,
        status: 'confirmed',
        event_type: 'native_transfer',
      },
    ]);
    const block = await t.db('transfers').where({ tx_hash: expected.txID }).first('block_number', 'block_hash');
    expect(block).toEqual({ block_number: 30864544, block_hash: fixture.expected.blockID });
  });
});
