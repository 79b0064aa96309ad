import { BaseError, type ChainPlugin, PLUGIN_API_VERSION, confirmByDepth } from '@walletd/plugin-kit';
import { deriveXrpAccount, parseXrpDestination, xrpMatchKey } from './addresses';
import { XRP_CHAINS, servesNetwork } from './networks';
import { createXrpWithdrawals } from './verbs';
import { type XrpReader, createXrpReader } from './reader';

/**
 * The XRP Ledger (mainnet, testnet, devnet and a local name for tests): XRP and allow-listed issued
 * currencies. Account-tag addressing: one account per wallet, deposit addresses are `r…:tag`.
 */
export function createXrpPlugin(): ChainPlugin<XrpReader> {
  const check = (chain: string, network: string) => {
    if (!servesNetwork(chain, network)) throw new BaseError('validation_failed', `@walletd/plugin-xrp does not serve ${chain}/${network}`);
  };
  return {
    apiVersion: PLUGIN_API_VERSION,
    name: '@walletd/plugin-xrp',
    chains: XRP_CHAINS,
    detectModule: require.resolve('./detect'),
    validateAddress: (_chain, network, address) => parseXrpDestination(network, address) !== null,
    matchKey: (_chain, network, address) => xrpMatchKey(network, address),
    // The match form is the display form (classic address, `:tag` for a deposit address).
    formatAddress: (_chain, network, address) => xrpMatchKey(network, address),
    deriveAddress: (chain, network, secret, index) => {
      check(chain, network);
      const seed = secret.seed();
      try {
        return deriveXrpAccount(seed, index);
      } finally {
        seed.fill(0);
      }
    },
    createReader: (chain, network, options) => {
      check(chain, network);
      return createXrpReader(network, options);
    },
    confirm: confirmByDepth,
    withdrawals: createXrpWithdrawals(),
  };
}
