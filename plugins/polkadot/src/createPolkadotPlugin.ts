import { BaseError, type ChainPlugin, PLUGIN_API_VERSION, confirmByDepth } from '@walletd/plugin-kit';
import { derivePolkadotAddress, formatPolkadotAddress, polkadotMatchKey, validatePolkadotAddress } from './addresses';
import { POLKADOT_CHAINS, servesNetwork, ss58Prefix } from './networks';
import { type PolkadotReader, createPolkadotReader } from './reader';
import { createPolkadotWithdrawals } from './verbs';

export const POLKADOT_PLUGIN_NAME = '@walletd/plugin-polkadot';

/**
 * Polkadot Asset Hub: DOT and allow-listed assets-pallet tokens (by asset id). Addresses are
 * sr25519 keys hard-derived from the wallet's phrase at `//index` (polkadot.js, subkey), shown in
 * SS58 with the network's prefix and matched by their 32-byte account id.
 */
export function createPolkadotPlugin(): ChainPlugin<PolkadotReader> {
  const serve = (chain: string, network: string) => {
    if (!servesNetwork(chain, network))
      throw new BaseError('validation_failed', `${POLKADOT_PLUGIN_NAME} does not serve ${chain}/${network}`);
  };
  return {
    apiVersion: PLUGIN_API_VERSION,
    name: POLKADOT_PLUGIN_NAME,
    chains: POLKADOT_CHAINS,
    detectModule: require.resolve('./detect'),
    validateAddress: (_chain, _network, address) => validatePolkadotAddress(address),
    matchKey: (_chain, _network, address) => polkadotMatchKey(address),
    formatAddress: (_chain, network, address) => formatPolkadotAddress(address, ss58Prefix(network)),
    deriveAddress: (chain, network, secret, index) => {
      serve(chain, network);
      const entropy = secret.entropy();
      try {
        return derivePolkadotAddress(entropy, index, ss58Prefix(network));
      } finally {
        entropy.fill(0);
      }
    },
    createReader: (_chain, _network, options) => createPolkadotReader(options),
    confirm: confirmByDepth,
    withdrawals: createPolkadotWithdrawals(),
  };
}
