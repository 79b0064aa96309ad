import { BaseError, type WalletdConfig } from '@walletd/core';
import { localChainModule } from '@walletd/devchains/dist/localChainModules';

/**
 * Whether this service follows `chain`/`network`, read from the configuration alone (a `chains[]`
 * entry, or a local chain of `devnet.chains` that `serve` runs when none is configured): an API
 * process may run without the indexer role, and its answer must be the same as the indexer's.
 */
export function isFollowed(config: Pick<WalletdConfig, 'chains' | 'devnet'>, chain: string, network: string): boolean {
  if (config.chains.some((c) => c.chain === chain && c.network === network)) return true;
  if (config.chains.length > 0 || !config.devnet.enabled) return false;
  return config.devnet.chains.some((name) => {
    const follows = localChainModule(name)?.follows;
    return follows?.chain === chain && follows.network === network;
  });
}

/**
 * A deposit address on a network nobody watches would take money whose arrival is never seen:
 * refused (409 `chain_not_followed`) with the config line that follows it.
 */
export function refuseUnfollowed(config: Pick<WalletdConfig, 'chains' | 'devnet'>, chain: string, network: string): void {
  if (isFollowed(config, chain, network)) return;
  throw new BaseError(
    'chain_not_followed',
    `walletd follows no ${chain}/${network} node: add a chains[] entry with chain "${chain}", network "${network}" and its node URL (docs/guide/chains.md) to issue deposit addresses whose deposits will be seen`,
  );
}
