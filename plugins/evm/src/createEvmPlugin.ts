import { BaseError, type ChainPlugin, type CreatePluginOptions, PLUGIN_API_VERSION, confirmByDepth } from '@walletd/plugin-kit';
import { ethers } from './sdk';
import { deriveEvmAddress, evmMatchKey, validateEvmAddress } from './addresses';
import { checkBalances } from './verbs/checkBalances';
import { createEvmReader } from './reader';
import { evmChainsWith } from './configuredChains';
import { createEvmWithdrawals } from './verbs';
import { evmAddressOf } from './signWithKeySigner';

/**
 * One plugin for the four EVM chains, and the EVM networks the operator declares in `chains[]`
 * (`configuredChains.ts`): the same address and log formats everywhere.
 */
export function createEvmPlugin(options: CreatePluginOptions = {}): ChainPlugin {
  const chains = evmChainsWith(options.configuredNetworks);
  return {
    apiVersion: PLUGIN_API_VERSION,
    name: '@walletd/plugin-evm',
    chains,
    detectModule: require.resolve('./detect'),
    validateAddress: (_chain, _network, address) => validateEvmAddress(address),
    matchKey: (_chain, _network, address) => evmMatchKey(address),
    formatAddress: (_chain, _network, address) => ethers().getAddress(address),
    deriveAddress: (chain, network, secret, index) => {
      if (!chains.some((c) => c.chain === chain && c.networks.some((n) => n.network === network))) {
        throw new BaseError('validation_failed', `@walletd/plugin-evm does not serve ${chain}/${network}`);
      }
      const seed = secret.seed();
      try {
        return deriveEvmAddress(seed, index);
      } finally {
        seed.fill(0);
      }
    },
    addressOfKey: (_chain, _network, signer) => {
      const address = evmAddressOf(signer);
      return { address, matchKey: address.toLowerCase() };
    },
    createReader: (_chain, _network, options) => createEvmReader(options),
    checkBalances,
    confirm: confirmByDepth,
    withdrawals: createEvmWithdrawals(
      (chain, network) =>
        options.configuredNetworks?.find((n) => n.family === 'evm' && n.chain === chain && n.network === network)?.chainId,
    ),
  };
}
