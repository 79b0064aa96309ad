import { randomBytes } from 'node:crypto';
import { MasterKey, createLogger, registerPlugins } from '@walletd/core';
import { type DetectPool, createDetectPool, createFollower } from '@walletd/indexer';
import { createEvmPlugin } from '@walletd/plugin-evm';
import { createWallet, generateAddress, loadPlugins } from '@walletd/server';
import { type Anvil, type TestDatabase, createTestDatabase, seedCompany, startAnvil, shippedPlugins } from '@walletd/test-harness';

/**
 * The internal-movement rule on an EVM chain (anvil): a transfer whose sender is an address of the
 * recipient's own wallet is no deposit, whoever sent it (here not walletd: the key used elsewhere,
 * so no withdrawal row carries its hash). A transfer from it to another wallet is a deposit there.
 */
describe('EVM: moves between addresses of one wallet are no deposits', () => {
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

  async function wallet(companyId: number, name: string) {
    const w = await createWallet(t.db, masterKey, { companyId, name, chain: 'ethereum', network: 'devnet' }, shippedPlugins());
    return t.db('wallets').where({ id: w.id }).first();
  }
  const address = (row: unknown) => generateAddress({ db: t.db, masterKey, plugins: loadPlugins() }, row as never, null);
  /** Sends from an address of ours as its key's holder would, outside walletd. */
  async function sendFrom(from: string, to: string, wei: bigint) {
    await anvil.rpc('anvil_impersonateAccount', [from]);
    const hash = await anvil.rpc<string>('eth_sendTransaction', [{ from, to, value: `0x${wei.toString(16)}` }]);
    await anvil.receipt(hash);
    return hash;
  }

  it('credits the funding and the payment to another wallet, never the move from a to b of one wallet', async () => {
    const s = await seedCompany(t.db);
    const hot = await wallet(s.companyId, 'hot');
    const cold = await wallet(s.companyId, 'cold');
    const a = await address(hot);
    const b = await address(hot);
    const c = await address(cold);
    const funding = await anvil.send(a.address, 5n * 10n ** 18n);
    const move = await sendFrom(a.address, b.address, 10n ** 18n);
    const payment = await sendFrom(a.address, c.address, 2n * 10n ** 18n);
    await createFollower({
      db: t.db,
      logger: createLogger({ level: 'silent' }),
      pool,
      plugin: registry.forChain('ethereum')!,
      settings: { chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, confirmations: 1, startBlock: 0 },
    }).tick();
    const rows = await t.db('transfers').orderBy('id').select('tx_hash', 'wallet_id', 'to_address', 'amount');
    expect(rows.map((r) => [r.tx_hash, r.wallet_id, r.to_address, r.amount])).toEqual([
      [funding, hot.id, a.address, '5000000000000000000'],
      [payment, cold.id, c.address, '2000000000000000000'],
    ]);
    const detected = (await t.db('events').where({ type: 'deposit.detected' }).pluck('body')) as string[];
    expect(detected.map((body) => JSON.parse(body).data.txHash).sort()).toEqual([funding, payment].sort());
    expect(detected.some((body) => body.includes(move))).toBe(false);
  });
});
