import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describePlayground } from '@walletd/test-harness';

/**
 * The README's devnet loop ("Try the whole loop on the devnet") through the same local-chain
 * path as the others: `walletd serve` with `devnet.chains: ["evm"]` (the default) runs anvil as
 * ethereum/devnet from the devchains module; `walletd dev fund --chain evm` pays ETH and mints
 * the devnet USDC; both deposits are confirmed through the API and at a real receiver, and a
 * withdrawal of ETH out is confirmed.
 */
describePlayground({
  describe: 'the EVM devnet playground (walletd serve with devnet.chains evm, walletd dev fund)',
  it: 'serves deposits of ETH and USDC funded with walletd dev fund, a withdrawal out, the events at the receiver, and stops anvil with the service',
  loop: { devnet: 'evm', plugin: '@walletd/plugin-evm', chain: 'ethereum', network: 'devnet', coin: 'ETH', token: 'USDC' },
  chainChecks: async (r, service) => {
    const file = join(r.dataDir, 'devchains', 'evm.json');
    const { rpcUrl } = JSON.parse(readFileSync(file, 'utf8')) as { rpcUrl: string };
    await service.stop();
    // No other walletd process used it: anvil stopped, and its description with it.
    await expect(fetch(rpcUrl, { method: 'POST' })).rejects.toThrow();
    expect(existsSync(file)).toBe(false);
  },
});
