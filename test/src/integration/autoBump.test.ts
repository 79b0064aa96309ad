import { randomBytes } from 'node:crypto';
import {
  type AutoBumpSettings,
  type ChainSettings,
  MasterKey,
  createLogger,
  createMetrics,
  fromBaseUnits,
  toBaseUnits,
} from '@walletd/core';
import { createDetectPool, type DetectPool, type Follower } from '@walletd/indexer';
import { type Common, loadPlugins, runAutoBumps } from '@walletd/server';
import {
  type Anvil,
  type Seeded,
  type TestApp,
  type TestDatabase,
  call,
  createTestDatabase,
  seedCompany,
  startAnvil,
  startTestApp,
  testConfig,
  testFollower,
} from '@walletd/test-harness';

const eth = (units: bigint) => fromBaseUnits(units, 18);
const wei = (s: string) => toBaseUnits(s, 18);
const DEAD = '0x000000000000000000000000000000000000dEaD';

/**
 * Issue 46 §5 on anvil (automine off): `chains[].autoBump` speeds up a payout whose latest
 * transaction waited `afterBlocks` indexed blocks, fees at least `factor` times, audited as the
 * system; a cap below the replacement rule leaves it (and waits another `afterBlocks`); a manual
 * speed-up restarts the count; without the setting nothing is bumped.
 */
describe('auto-bump of stuck EVM payouts', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  let app: TestApp;
  let s: Seeded;
  let follower: Follower;
  let walletId: number;
  let credited = 5n * 10n ** 18n;
  let settings: ChainSettings;
  const key = { chain: 'ethereum', network: 'devnet' };
  const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });
  const round = async (blocks: number) => {
    await anvil.mine(blocks);
    await follower.tick();
  };
  /** The loop as the indexer leading the chain runs it, with this chain's autoBump (none: off). */
  const bump = (autoBump?: AutoBumpSettings) =>
    runAutoBumps(
      {
        config: testConfig({ chains: [{ ...settings, ...(autoBump ? { autoBump } : {}) }] }),
        logger: createLogger({ level: 'silent' }),
        db: t.db,
        masterKey: app.masterKey,
        plugins: loadPlugins(),
        metrics: createMetrics(),
      } as Common,
      key,
    );
  const attempts = (id: number) => t.db('withdrawal_attempts').where({ withdrawal_id: id }).orderBy('id');
  const maxFee = (a: { unsigned_tx: { payload: { maxFeePerGas: string } } }) => BigInt(a.unsigned_tx.payload.maxFeePerGas);
  /** A payout broadcast, then a block whose base fee is far above its max fee: it stays in the pool. */
  const stuckPayout = async (idem: string, amount: string) => {
    const prepared = await api('POST', `/wallets/${walletId}/withdrawals`, { asset: 'ETH', toAddress: DEAD, amount, idempotencyKey: idem });
    expect(prepared.status).toBe(201);
    const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(sent.body.status).toBe('broadcast');
    const { baseFeePerGas } = await anvil.rpc<{ baseFeePerGas: string }>('eth_getBlockByNumber', ['latest', false]);
    await anvil.rpc('anvil_setNextBlockBaseFeePerGas', [`0x${(BigInt(baseFeePerGas) * 20n + 10n ** 10n).toString(16)}`]);
    await round(1);
    const row = await t.db('withdrawals').where({ id: prepared.body.id }).first('unsigned_tx');
    return { id: prepared.body.id as number, txHash: sent.body.txHash as string, maxFee: BigInt(row.unsigned_tx.payload.maxFeePerGas) };
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    pool = createDetectPool(1);
    settings = { chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, confirmations: 1, startBlock: 0 };
    app = await startTestApp(t.db, { chains: [settings], rateLimit: { writesPerKeyPerMinute: 1000 } }, new MasterKey(randomBytes(32)));
    follower = testFollower(t.db, pool, settings);
    s = await seedCompany(t.db);
    walletId = (await api('POST', '/wallets', { name: 'hot', chain: 'ethereum', network: 'devnet' })).body.id;
    await anvil.send((await api('POST', `/wallets/${walletId}/addresses`)).body.address, credited);
    await round(2);
    await anvil.rpc('evm_setAutomine', [false]);
  });
  afterAll(async () => {
    await app.close();
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  it('speeds up a payout unconfirmed after afterBlocks, by the factor, once, audited as the system; it lands', async () => {
    const a = await stuckPayout('a', '0.1');
    const auto = { afterBlocks: 2, factor: 10, maxFeePerGas: String(10n ** 12n) };
    // Off by default: nothing is even counted.
    expect(await bump()).toEqual({ bumped: 0, refused: 0 });
    expect(await t.db('withdrawals').where({ id: a.id }).first('auto_bump_from')).toEqual({ auto_bump_from: null });
    expect(await bump(auto)).toEqual({ bumped: 0, refused: 0 }); // first seen: the count starts
    await round(1);
    expect(await bump(auto)).toEqual({ bumped: 0, refused: 0 });
    expect(await attempts(a.id)).toHaveLength(0);
    await anvil.mine(1);
    await follower.tick();
    expect(await bump(auto)).toEqual({ bumped: 1, refused: 0 });
    expect(await bump(auto)).toEqual({ bumped: 0, refused: 0 }); // at most once per afterBlocks
    const made = await attempts(a.id);
    expect(made.map((x: { kind: string }) => x.kind)).toEqual(['original', 'speed_up']);
    expect(maxFee(made[1])).toBeGreaterThanOrEqual(a.maxFee * 10n);
    expect(maxFee(made[1])).toBeLessThanOrEqual(10n ** 12n);
    const audited = await t.db('audit_log').where({ action: 'withdrawal.speed_up', target_id: String(a.id) });
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({ actor_type: 'system', actor_id: null });

    await round(1);
    const landed = (await api('GET', `/withdrawals/${a.id}`)).body;
    expect(landed).toMatchObject({ status: 'confirmed', txHash: made[1].tx_hash });
    const r = await anvil.rpc<{ gasUsed: string; effectiveGasPrice: string }>('eth_getTransactionReceipt', [made[1].tx_hash]);
    credited -= wei('0.1') + BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice);
    const b = (await api('GET', `/wallets/${walletId}/balances`)).body.balances.find(
      (x: { asset: { symbol: string } }) => x.asset.symbol === 'ETH',
    );
    expect({ confirmed: b.confirmed, reserved: b.reserved }).toEqual({ confirmed: eth(credited), reserved: '0' });
  });

  it('a cap below the replacement rule leaves the payout and waits another afterBlocks; a manual speed-up restarts the count', async () => {
    const c = await stuckPayout('c', '0.1');
    const capped = { afterBlocks: 2, factor: 1.5, maxFeePerGas: String(c.maxFee) };
    expect(await bump(capped)).toEqual({ bumped: 0, refused: 0 });
    await round(2);
    expect(await bump(capped)).toEqual({ bumped: 0, refused: 1 });
    expect(await bump(capped)).toEqual({ bumped: 0, refused: 0 });
    expect(await attempts(c.id)).toHaveLength(0);

    // A person speeds it up: the automatic count starts again from that transaction.
    await round(2);
    const sped = await api('POST', `/withdrawals/${c.id}/speed-up`, { replaces: c.txHash });
    expect(sped.status).toBe(200);
    const roomy = { ...capped, maxFeePerGas: String(10n ** 12n) };
    expect(await bump(roomy)).toEqual({ bumped: 0, refused: 0 });
    expect((await attempts(c.id)).map((x: { kind: string }) => x.kind)).toEqual(['original', 'speed_up']);
    await round(1);
    expect((await api('GET', `/withdrawals/${c.id}`)).body.status).toBe('confirmed');
    expect(await bump(roomy)).toEqual({ bumped: 0, refused: 0 });
  });
});
