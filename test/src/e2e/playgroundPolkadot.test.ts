import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describePlayground, runWalletdAsync } from '@walletd/test-harness';

/**
 * The Polkadot playground of docs/guide/devnet.md: `walletd serve` with `devnet.chains: ["polkadot"]` runs chopsticks (the Rococo Asset Hub runtime)
 * as polkadot/localnet; `walletd dev fund --chain polkadot` has //Alice pay ROC and
 * the local USDT (asset 1984) to a deposit address; both deposits are confirmed through the API and at a real receiver, and a withdrawal out is
 * confirmed on the engine's chain. A funding its block fails is reported as failed.
 */
describePlayground({
  describe: 'the Polkadot playground (walletd serve with devnet.chains polkadot, walletd dev fund)',
  it: 'serves deposits of ROC and USDT funded with walletd dev fund, a withdrawal out, the events at the receiver, and stops the engine with the service',
  loop: { devnet: 'polkadot', plugin: '@walletd/plugin-polkadot', chain: 'polkadot', network: 'localnet', coin: 'ROC', token: 'USDT' },
  chainChecks: async (r, service) => {
    // A transfer the pool accepts but its block fails (1 planck cannot open an account: under the
    // existential deposit) is reported as failed, with the runtime's reason, not as funded.
    const fresh = (await r.api('POST', `/wallets/${r.walletId}/addresses`)).body.address as string;
    const tooSmall = await runWalletdAsync(
      ['dev', 'fund', '--config', r.config, '--chain', 'polkadot', '--address', fresh, '--amount', '0.000000000001'],
      r.env,
    );
    expect({ status: tooSmall.status, stdout: tooSmall.stdout }).toEqual({ status: 1, stdout: '' });
    expect(tooSmall.stderr).toMatch(/failed in block #\d+: balances\.\w+/);
    const { rpcUrl } = JSON.parse(readFileSync(join(r.dataDir, 'devchains', 'polkadot.json'), 'utf8'));
    await service.stop();
    // Chopsticks is a process of its own: it ends with the service.
    await expect(fetch(rpcUrl, { method: 'POST' })).rejects.toThrow();
  },
});
