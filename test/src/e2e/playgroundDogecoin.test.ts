import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describePlayground } from '@walletd/test-harness';

/**
 * The dogecoin playground of docs/guide/devnet.md: `walletd serve` with `devnet.chains: ["dogecoin"]` runs a
 * litecoind regtest node of its own (datadir `.walletd/devchains/litecoind-dogecoin`) followed as
 * dogecoin/regtest; `walletd dev fund --chain dogecoin` has the node's wallet pay a P2PKH deposit
 * address and mines the block; the deposit is confirmed through the API and at a real receiver,
 * and a withdrawal of DOGE out is mined and confirmed. The node stops with the service.
 */
describePlayground({
  describe: 'the dogecoin playground (walletd serve with devnet.chains dogecoin, walletd dev fund)',
  it: 'serves a DOGE deposit funded with walletd dev fund, a withdrawal out, the events at the receiver; the node stops with the service',
  loop: { devnet: 'dogecoin', plugin: '@walletd/plugin-utxo', chain: 'dogecoin', network: 'regtest', coin: 'DOGE' },
  litecoind: true,
  timeoutMs: 300_000,
  chainChecks: async (r, service) => {
    expect(r.address).toMatch(/^[mn]/); // P2PKH on regtest (0x6f): dogecoin has no segwit
    const { rpcUrl } = JSON.parse(readFileSync(join(r.dataDir, 'devchains', 'dogecoin.json'), 'utf8')) as { rpcUrl: string };
    await service.stop();
    await expect(fetch(`http://${new URL(rpcUrl).host}/`, { method: 'POST' })).rejects.toThrow();
  },
});
