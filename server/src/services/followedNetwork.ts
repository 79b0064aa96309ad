import { BaseError, type WalletdConfig } from '@walletd/core';
import { DEVNET_NETWORK } from '../devnet/devnetNetwork';

/**
 * Whether this service follows `chain`/`network`, read from the configuration alone (a `chains[]`
 * entry, or the devnet `serve` runs when none is configured): an API process may run without the
 * indexer role, and its answer must be the same as the indexer's.
 */
export function isFollowed(config: Pick<WalletdConfig, 'chains' | 'devnet'>, chain: string, network: string): boolean {
  if (config.chains.some((c) => c.chain === chain && c.network === network)) return true;
  return config.chains.length === 0 && config.devnet.enabled && chain === DEVNET_NETWORK.chain && network === DEVNET_NETWORK.network;
}

/**
 * A deposit address on a network nobody watches would take money whose arrival is never seen:
 * refused (409 `chain_not_followed`) with the config line that follows it.
 */
export function refuseUnfollowed(config: Pick<WalletdConfig, 'chains' | 'devnet'>, chain: string, network: string): void {
  if (isFollowed(config, chain, network)) return;
  throw new BaseError(
    'chain_not_followed',
    `walletd follows no ${chain}/${network} node: add a chains[] entry with chain "${chain}", network "${network}" and its node URL (README#chains) to issue deposit addresses whose deposits will be seen`,
  );
}
