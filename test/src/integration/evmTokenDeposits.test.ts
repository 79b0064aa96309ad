import { randomBytes } from 'node:crypto';
import { MasterKey, createLogger, registerPlugins } from '@walletd/core';
import { createDetectPool, createFollower, type DetectPool } from '@walletd/indexer';
import { createEvmPlugin } from '@walletd/plugin-evm';
import { validator } from '@walletd/schemas';
import { createWallet, generateAddress, loadPlugins } from '@walletd/server';
import {
  ANVIL_FUNDER,
  call,
  startTestApp,
  createTestDatabase,
  deployTestToken,
  seedCompany,
  startAnvil,
  type Anvil,
  type TestDatabase,
  type TestToken,
  shippedPlugins,
} from '@walletd/test-harness';

/** ERC-20 deposits on anvil: allow-listed tokens only, one event per transfer, reverted sends ignored. */
describe('EVM token deposits on anvil', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  let usdc: TestToken;
  let fake: TestToken;
  const masterKey = new MasterKey(randomBytes(32));
  const registry = registerPlugins([createEvmPlugin()]);

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    pool = createDetectPool(1);
    usdc = await deployTestToken(anvil, 'USD Coin', 'USDC', 6);
    fake = await deployTestToken(anvil, 'USD Coin', 'USDC', 6); // same name and symbol, not allow-listed
    await usdc.mint(ANVIL_FUNDER, 1_000_000_000n);
    await fake.mint(ANVIL_FUNDER, 1_000_000_000n);
  });
  afterAll(async () => {
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  it('credits only the allow-listed contract, each transfer of a batch once, never a reverted transfer', async () => {
    const s = await seedCompany(t.db);
    const wallet = await createWallet(
      t.db,
      masterKey,
      { companyId: s.companyId, name: 'hot', chain: 'ethereum', network: 'devnet' },
      shippedPlugins(),
    );
    const row = await t.db('wallets').where({ id: wallet.id }).first();
    const a = await generateAddress({ db: t.db, masterKey, plugins: loadPlugins() }, row, null);
    const b = await generateAddress({ db: t.db, masterKey, plugins: loadPlugins() }, row, null);
    const follower = createFollower({
      db: t.db,
      logger: createLogger({ level: 'silent' }),
      pool,
      plugin: registry.forChain('ethereum')!,
      settings: {
        chain: 'ethereum',
        network: 'devnet',
        rpcUrl: anvil.url,
        confirmations: 1,
        startBlock: 0,
        tokens: [{ contract: usdc.address, symbol: 'USDC', decimals: 6 }],
      },
    });

    const single = await usdc.transfer(a.address, 12_345_678n);
    const batch = await usdc.batchTransfer([a.address, b.address, a.address], [1n, 2_000_000n, 3n]);
    const counterfeit = await fake.transfer(a.address, 5_000_000n);
    const reverted = await usdc.transfer(a.address, 10n ** 30n, { gas: 100_000n });
    expect((await anvil.receipt(reverted)).status).toBe('0x0');
    await follower.tick();

    const transfers = await t
      .db('transfers')
      .orderBy(['tx_hash', 'event_index'])
      .select('tx_hash', 'event_index', 'amount', 'to_address', 'asset_key', 'event_type', 'status');
    const key = `ethereum:devnet:${usdc.address.toLowerCase()}`;
    expect(transfers.filter((x) => x.tx_hash === single)).toEqual([
      {
        tx_hash: single,
        event_index: 1,
        amount: '12345678',
        to_address: a.address,
        asset_key: key,
        event_type: 'erc20_transfer',
        status: 'confirmed',
      },
    ]);
    const fromBatch = transfers.filter((x) => x.tx_hash === batch);
    expect(fromBatch.map((x) => [x.event_index, x.amount, x.to_address])).toEqual([
      [1, '1', a.address],
      [2, '2000000', b.address],
      [3, '3', a.address],
    ]);
    expect(transfers.some((x) => x.tx_hash === counterfeit || x.tx_hash === reverted)).toBe(false);

    const confirmed = (await t.db('events').where({ type: 'deposit.confirmed' }).orderBy('seq').pluck('body')).map(
      (x: string) => JSON.parse(x).data,
    );
    expect(confirmed.map((d: { txHash: string; amount: string; eventIndex: number }) => [d.txHash, d.eventIndex, d.amount])).toEqual([
      [single, 1, '12.345678'],
      [batch, 1, '0.000001'],
      [batch, 2, '2'],
      [batch, 3, '0.000003'],
    ]);
    expect(confirmed[0]).toMatchObject({
      eventType: 'erc20_transfer',
      asset: { key, symbol: 'USDC', decimals: 6, contractAddress: usdc.address },
      fromAddress: ANVIL_FUNDER,
    });
    expect(typeof confirmed[0].logIndex).toBe('number');

    // The same facts through the HTTP API.
    const app = await startTestApp(
      t.db,
      {
        chains: [
          { chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, tokens: [{ contract: usdc.address, symbol: 'USDC', decimals: 6 }] },
        ],
      },
      masterKey,
    );
    try {
      const balances = await call(app.url, 'GET', `/v1/wallets/${wallet.id}/balances`, { key: s.rootKey });
      expect(validator('Balances')(balances.body)).toBe(true);
      expect(balances.body.balances).toEqual([
        {
          asset: { key: 'ethereum:devnet:eth', symbol: 'ETH', decimals: 18, contractAddress: null },
          confirmed: '0',
          pending: '0',
          reserved: '0',
          available: '0',
        },
        {
          asset: { key, symbol: 'USDC', decimals: 6, contractAddress: usdc.address },
          confirmed: '14.345682',
          pending: '0',
          reserved: '0',
          available: '14.345682',
        },
      ]);
      const live = await call(app.url, 'GET', `/v1/wallets/${wallet.id}/balances?onchain=true`, { key: s.rootKey });
      expect(validator('Balances')(live.body)).toBe(true);
      expect(live.body.balances.map((x: { asset: { symbol: string }; onchain: string }) => [x.asset.symbol, x.onchain])).toEqual([
        ['ETH', '0'],
        ['USDC', '14.345682'],
      ]);
      const found = await call(app.url, 'GET', `/v1/transactions?search=${batch.toUpperCase().replace('0X', '0x')}`, { key: s.rootKey });
      expect(found.body.transactions.map((x: { eventIndex: number; amount: string }) => [x.eventIndex, x.amount])).toEqual([
        [3, '0.000003'],
        [2, '2'],
        [1, '0.000001'],
      ]);
      expect(validator('TransactionList')(found.body)).toBe(true);
      expect((await call(app.url, 'GET', '/v1/transactions?search=nothex!', { key: s.rootKey })).status).toBe(400);
      const other = await seedCompany(t.db, 'paid', 'Other');
      expect((await call(app.url, 'GET', `/v1/transactions?search=${batch}`, { key: other.rootKey })).body.transactions).toEqual([]);
      const next = await call(app.url, 'POST', `/v1/wallets/${wallet.id}/addresses`, { key: s.rootKey, body: { label: 'customer 42' } });
      expect(next.status).toBe(201);
      expect(validator('Address')(next.body)).toBe(true);
      expect(next.body).toMatchObject({ walletId: wallet.id, index: 2, path: "m/44'/60'/0'/0/2", label: 'customer 42' });
      expect(
        (await call(app.url, 'GET', `/v1/wallets/${wallet.id}/addresses`, { key: s.rootKey })).body.addresses.map(
          (x: { address: string }) => x.address,
        ),
      ).toEqual([a.address, b.address, next.body.address]);
    } finally {
      await app.close();
    }
  });
});
