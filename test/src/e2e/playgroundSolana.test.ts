import { describePlayground } from '@walletd/test-harness';

/**
 * The Solana playground of docs/guide/devnet.md: `walletd serve` with `devnet.chains: ["solana"]` runs litesvm
 * behind the JSON-RPC adapter as solana/localnet; `walletd dev fund --chain solana` pays SOL and
 * mints the local USDC to a deposit address; both deposits are confirmed through the API and at a
 * real receiver, and a withdrawal of SOL out is confirmed on the engine's chain.
 */
describePlayground({
  describe: 'the Solana playground (walletd serve with devnet.chains solana, walletd dev fund)',
  it: 'serves deposits of SOL and USDC funded with walletd dev fund, a withdrawal out, the events at the receiver, and stops the engine with the service',
  loop: { devnet: 'solana', plugin: '@walletd/plugin-solana', chain: 'solana', network: 'localnet', coin: 'SOL', token: 'USDC' },
});
