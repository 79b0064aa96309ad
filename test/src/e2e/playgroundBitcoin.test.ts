import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createTestDatabase,
  describeWithLitecoind,
  eventually,
  playgroundLoop,
  runWalletdAsync,
  spawnWalletd,
  type TestDatabase,
  type WalletdProcess,
} from '@walletd/test-harness';

const info = (dataDir: string) =>
  JSON.parse(readFileSync(join(dataDir, 'devchains', 'bitcoin.json'), 'utf8')) as { rpcUrl: string; settings: { startBlock: number } };

/**
 * The README's bitcoin playground: `walletd serve` with `devnet.chains: ["bitcoin"]` runs a
 * litecoind regtest node (datadir under `.walletd/devchains/litecoind`) followed as
 * bitcoin/regtest; `walletd dev fund --chain bitcoin` has the node's wallet pay a deposit address
 * and mines the block; the deposit is confirmed through the API. litecoind stops with the service,
 * and a restart finds the same chain and wallet (a second funding works, the height went on).
 */
describeWithLitecoind('the bitcoin playground (walletd serve with devnet.chains bitcoin, walletd dev fund)', () => {
  let t: TestDatabase;
  let proc: WalletdProcess | undefined;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => {
    proc?.child.kill('SIGTERM');
    await proc?.exited;
    await t?.drop();
  });

  it('serves a BTC deposit funded with walletd dev fund; litecoind stops with the service and its chain persists', async () => {
    const r = await playgroundLoop(t, {
      devnet: 'bitcoin',
      plugin: '@walletd/plugin-utxo',
      chain: 'bitcoin',
      network: 'regtest',
      coin: 'BTC',
    });
    proc = r.proc;
    expect(r.balances).toEqual({ BTC: '2' });
    expect(r.address).toMatch(/^bcrt1q/);
    expect(r.log).toContain('local chain bitcoin/regtest running');
    const first = info(r.dataDir);
    // 101 blocks mined for the wallet's coins, the funding's block after them.
    expect(first.settings.startBlock).toBe(102);
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    proc = undefined;
    const url = new URL(first.rpcUrl);
    await expect(fetch(`http://${url.host}/`, { method: 'POST' })).rejects.toThrow();

    proc = spawnWalletd(['serve', '--config', r.config, '--roles', 'api,indexer'], r.env);
    await proc.waitFor(/API listening/, 120_000);
    // The kept chain, not a fresh one (a fresh chain starts at 102): its tip is at least the
    // funding's block. How many blocks the mempool ticker mined meanwhile varies (104 was seen in
    // a full run), so the bound, not the exact height, is what this proves.
    expect(info(r.dataDir).settings.startBlock).toBeGreaterThanOrEqual(103);
    const funded = await runWalletdAsync(
      ['dev', 'fund', '--config', r.config, '--chain', 'bitcoin', '--address', r.address, '--amount', '0.5'],
      r.env,
    );
    if (funded.status !== 0) throw new Error(`walletd dev fund: ${funded.stderr}`);
    const balances = await eventually(
      async () => (await r.api('GET', `/wallets/${r.walletId}/balances`)).body.balances as { confirmed: string }[],
      (b) => b[0]?.confirmed === '2.5',
      45_000,
      500,
    );
    expect(balances.map((b) => b.confirmed)).toEqual(['2.5']);
  }, 300_000);
});
