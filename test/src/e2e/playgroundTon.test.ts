import { describePlayground } from '@walletd/test-harness';

/**
 * The TON playground of docs/guide/devnet.md: `walletd serve` with `devnet.chains: ["ton"]` runs @ton/sandbox
 * behind the toncenter adapter as ton/localnet; `walletd dev fund --chain ton` sends TON and mints
 * the local USDT jetton to a deposit address; both deposits are confirmed through the API and at a
 * real receiver, and a withdrawal out is confirmed on the engine's chain.
 */
describePlayground({
  describe: 'the TON playground (walletd serve with devnet.chains ton, walletd dev fund)',
  it: 'serves deposits of TON and USDT funded with walletd dev fund, a withdrawal out, the events at the receiver, and stops the engine with the service',
  loop: { devnet: 'ton', plugin: '@walletd/plugin-ton', chain: 'ton', network: 'localnet', coin: 'TON', token: 'USDT' },
});
