import type { ChainCapabilities, ChainDefinition } from '@walletd/plugin-kit';
import { BaseError } from '@walletd/plugin-kit';

/** A Polkadot transfer pays one recipient; a remark-style memo is not carried (a batch would change what the recipient sees). */
export const POLKADOT_CAPABILITIES: ChainCapabilities = { memo: false, destinationTag: false, multipleOutputs: false, feePayer: false };

/**
 * Asset Hub networks. Deposits are final at the GRANDPA finalized head (`chain_getFinalizedHead`,
 * a few blocks behind the best head). `defaultConfirmations` applies only when the operator
 * chooses `finality: confirmations`. `localnet` is a local Asset Hub node (chopsticks in the tests:
 * Rococo Asset Hub's genesis runtime, ROC with 12 decimals, SS58 prefix 42).
 */
export const POLKADOT_CHAINS: ChainDefinition[] = [
  {
    chain: 'polkadot',
    addressing: 'key-per-address',
    capabilities: POLKADOT_CAPABILITIES,
    // Balances are u128, native and assets-pallet alike.
    amountCeiling: { native: 2n ** 128n - 1n, token: 2n ** 128n - 1n },
    networks: [
      { network: 'mainnet', defaultConfirmations: 12, finality: 'finalized', testnet: false, native: { symbol: 'DOT', decimals: 10 } },
      { network: 'paseo', defaultConfirmations: 12, finality: 'finalized', testnet: true, native: { symbol: 'PAS', decimals: 10 } },
      { network: 'localnet', defaultConfirmations: 1, finality: 'finalized', testnet: true, native: { symbol: 'ROC', decimals: 12 } },
    ],
  },
];

/** SS58 prefix of each network's display form: Polkadot and Paseo Asset Hub use 0, a local dev chain the generic 42. */
export const SS58_PREFIX: Readonly<Record<string, number>> = { mainnet: 0, paseo: 0, localnet: 42 };

export function ss58Prefix(network: string): number {
  const p = SS58_PREFIX[network];
  if (p === undefined) throw new BaseError('plugin_invalid', `unknown polkadot network ${network}`);
  return p;
}

export function servesNetwork(chain: string, network: string): boolean {
  return POLKADOT_CHAINS.some((c) => c.chain === chain && c.networks.some((n) => n.network === network));
}
