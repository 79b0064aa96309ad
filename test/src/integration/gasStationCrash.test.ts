import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey, createLogger, createMetrics } from '@walletd/core';
import { type DetectPool, type Follower, createDetectPool } from '@walletd/indexer';
import { type Common, ensureGasStation, loadPlugins, prepareWithdrawal, runSweeps } from '@walletd/server';
import {
  type Anvil,
  type Seeded,
  type TestApp,
  type TestDatabase,
  type TestToken,
  call,
  createTestDatabase,
  deployTestToken,
  nativeAsset,
  seedCompany,
  startAnvil,
  startTestApp,
  testConfig,
  testFollower,
} from '@walletd/test-harness';

const ETH = 10n ** 18n;
const USDC = 10n ** 6n;

/**
 * The gas station across a crash (issue 33): a top-up prepared under its key when the process died
 * is signed and sent by the next run, never a second one; and a top-up whose sweep is no longer
 * due (the threshold rose meanwhile) leaves its gas on the address, where the next sweep uses it
 * without another top-up.
 */
describe('gas station across a restart', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  let app: TestApp;
  let s: Seeded;
  let follower: Follower;
  let common: Common;
  let usdc: TestToken;
  const masterKey = new MasterKey(randomBytes(32));
  const chain = { chain: 'ethereum', network: 'devnet' };

  const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });
  const ethOf = async (address: string) => BigInt(await anvil.rpc<string>('eth_getBalance', [address, 'latest']));
  const round = async (blocks = 1) => {
    await anvil.mine(blocks);
    await follower.tick();
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    pool = createDetectPool(1);
    usdc = await deployTestToken(anvil, 'Devnet USD Coin', 'USDC', 6);
    const settings: ChainSettings = {
      chain: 'ethereum',
      network: 'devnet',
      rpcUrl: anvil.url,
      confirmations: 2,
      startBlock: 0,
      tokens: [{ contract: usdc.address, symbol: 'USDC', decimals: 6 }],
    };
    const over = { chains: [settings], rateLimit: { writesPerKeyPerMinute: 1000 } };
    app = await startTestApp(t.db, over, masterKey);
    common = {
      config: testConfig(over),
      logger: createLogger({ level: 'silent' }),
      db: t.db,
      masterKey,
      plugins: loadPlugins(),
      metrics: createMetrics(),
    };
    follower = testFollower(t.db, pool, settings);
    s = await seedCompany(t.db);
  });
  afterAll(async () => {
    await app.close();
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  it('a top-up prepared before a crash is sent by the next run, once; a top-up whose sweep is no longer due leaves its gas for the next one', async () => {
    const walletId = (await api('POST', '/wallets', { name: 'crash', ...chain })).body.id as number;
    const treasury = (await api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    const src = (await api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    await usdc.mint(src, 40n * USDC);
    await round(2);
    const rule = (
      await api('POST', `/wallets/${walletId}/sweep-rules`, { asset: 'USDC', destination: treasury, threshold: '10', trigger: 'deposit' })
    ).body as { id: number };

    // What the runner had done when the process died: the top-up prepared under its key, nothing sent.
    const wallet = await t.db('wallets').where({ id: walletId }).first();
    const station = await ensureGasStation(common, wallet);
    await anvil.send(station.address, ETH / 10n);
    await round(2);
    const deposit = await t
      .db('transfers as t')
      .join('addresses as a', 'a.id', 't.address_id')
      .where({ 'a.address': src, 't.direction': 'incoming', 't.status': 'confirmed' })
      .max('t.id as id')
      .first();
    const gas = ETH / 1000n; // ample for one token transfer on anvil
    const { row } = await prepareWithdrawal(common, wallet, {
      intent: {
        asset: nativeAsset('ethereum', 'devnet'),
        outputs: [{ to: src, toKey: src.toLowerCase(), amount: gas }],
        from: { address: station.address, matchKey: station.match_key },
      },
      idempotencyKey: `gas_topup:${rule.id}:d${deposit?.id}:${src}`,
      keyId: null,
      request: null,
      sweepRuleId: rule.id,
      kind: 'gas_topup',
    });
    expect(row).toMatchObject({ status: 'prepared', kind: 'gas_topup' });

    const resumed = await runSweeps(common, chain);
    expect(resumed).toMatchObject({ toppedUp: 0, sent: 0, failed: 0 });
    await round(3);
    const topUps = await t.db('withdrawals').where({ wallet_id: walletId, kind: 'gas_topup' });
    expect(topUps.map((w) => [w.id, w.status])).toEqual([[row.id, 'confirmed']]);
    expect(await ethOf(src)).toBe(gas);

    // The sweep is no longer due (the threshold rose above the balance): nothing is sent, the gas stays.
    expect((await api('PATCH', `/wallets/${walletId}/sweep-rules/${rule.id}`, { threshold: '50' })).status).toBe(200);
    expect(await runSweeps(common, chain)).toMatchObject({ toppedUp: 0, sent: 0, failed: 0 });
    expect(await ethOf(src)).toBe(gas);

    // Due again: the gas already there pays the sweep, no second top-up.
    expect((await api('PATCH', `/wallets/${walletId}/sweep-rules/${rule.id}`, { threshold: '10' })).status).toBe(200);
    expect(await runSweeps(common, chain)).toMatchObject({ toppedUp: 0, sent: 1, failed: 0 });
    await round(3);
    expect(await t.db('withdrawals').where({ wallet_id: walletId, kind: 'gas_topup' })).toHaveLength(1);
    const [sweep] = await t.db('withdrawals').where({ wallet_id: walletId, kind: 'sweep' });
    expect(sweep).toMatchObject({ status: 'confirmed', amount: String(40n * USDC), to_address: treasury });
    expect(await ethOf(src)).toBe(gas - BigInt(sweep.fee));
  });
});
