import { fromBaseUnits, toBaseUnits } from '@walletd/core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describePlayground, eventually, runWalletdAsync, spawnWalletd } from '@walletd/test-harness';

const info = (dataDir: string) =>
  JSON.parse(readFileSync(join(dataDir, 'devchains', 'bitcoin.json'), 'utf8')) as { rpcUrl: string; settings: { startBlock: number } };

/**
 * The bitcoin playground of docs/guide/devnet.md: `walletd serve` with `devnet.chains: ["bitcoin"]` runs a
 * litecoind regtest node (datadir under `.walletd/devchains/litecoind`) followed as
 * bitcoin/regtest; `walletd dev fund --chain bitcoin` has the node's wallet pay a deposit address
 * and mines the block; the deposit is confirmed through the API and at a real receiver, and a
 * withdrawal of BTC out is mined (the mempool ticker) and confirmed. litecoind stops with the service,
 * and a restart finds the same chain and wallet (a second funding works, the height went on).
 */
describePlayground({
  describe: 'the bitcoin playground (walletd serve with devnet.chains bitcoin, walletd dev fund)',
  it: 'serves a BTC deposit funded with walletd dev fund, a withdrawal out, the events at the receiver; litecoind stops with the service and its chain persists',
  loop: { devnet: 'bitcoin', plugin: '@walletd/plugin-utxo', chain: 'bitcoin', network: 'regtest', coin: 'BTC' },
  litecoind: true,
  timeoutMs: 300_000,
  chainChecks: async (r, service) => {
    expect(r.address).toMatch(/^bcrt1q/);
    const first = info(r.dataDir);
    // 101 blocks mined for the wallet's coins, the funding's block after them.
    expect(first.settings.startBlock).toBe(102);
    await service.stop();
    const url = new URL(first.rpcUrl);
    await expect(fetch(`http://${url.host}/`, { method: 'POST' })).rejects.toThrow();

    const proc = spawnWalletd(['serve', '--config', r.config, '--roles', 'api,indexer'], r.env);
    service.adopt(proc);
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
    // 2 in, 0.5 and the fee out, 0.5 in again.
    const now = fromBaseUnits(toBaseUnits('2', 8) - toBaseUnits(r.withdrawal.fee, 8), 8);
    const balances = await eventually(
      async () => (await r.api('GET', `/wallets/${r.walletId}/balances`)).body.balances as { confirmed: string }[],
      (b) => b[0]?.confirmed === now,
      45_000,
      500,
    );
    expect(balances.map((b) => b.confirmed)).toEqual([now]);
  },
});
