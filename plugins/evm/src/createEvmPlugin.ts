import { BaseError, type ChainPlugin, PLUGIN_API_VERSION, confirmByDepth } from '@walletd/plugin-kit';
import { getAddress } from 'ethers';
import { deriveEvmAddress, evmMatchKey, validateEvmAddress } from './addresses';
import { checkBalances } from './verbs/checkBalances';
import { createEvmReader } from './reader';
import { EVM_CHAINS } from './networks';
import { createEvmWithdrawals } from './verbs';

/** One plugin for the four EVM chains: the same address and log formats everywhere. */
export function createEvmPlugin(): ChainPlugin {
  return {
    apiVersion: PLUGIN_API_VERSION,
    name: '@walletd/plugin-evm',
    chains: EVM_CHAINS,
    detectModule: require.resolve('./detect'),
    validateAddress: (_chain, _network, address) => validateEvmAddress(address),
    matchKey: (_chain, _network, address) => evmMatchKey(address),
    formatAddress: (_chain, _network, address) => getAddress(address),
    deriveAddress: (chain, network, secret, index) => {
      if (!EVM_CHAINS.some((c) => c.chain === chain && c.networks.some((n) => n.network === network))) {
        throw new BaseError('validation_failed', `@walletd/plugin-evm does not serve ${chain}/${network}`);
      }
      const seed = secret.seed();
      try {
        return deriveEvmAddress(seed, index);
      } finally {
        seed.fill(0);
      }
    },
    createReader: (_chain, _network, options) => createEvmReader(options),
    checkBalances,
    confirm: confirmByDepth,
    withdrawals: createEvmWithdrawals(),
  };
}
