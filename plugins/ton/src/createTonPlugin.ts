import { Address } from '@ton/core';
import { BaseError, type ChainPlugin, PLUGIN_API_VERSION, confirmByDepth } from '@walletd/plugin-kit';
import { addressOfTonKey, deriveTonAddress, parseTonAddress, tonMatchKey } from './addresses';
import { TON_CHAINS, isTestNetwork, servesNetwork } from './networks';
import { jettonWallets } from './verbs/tokenAccounts';
import { type TonReader, createTonReader } from './reader';
import { createTonWithdrawals } from './verbs';

/** TON (mainnet, testnet and a local name for tests): TON and allow-listed jettons. */
export function createTonPlugin(): ChainPlugin<TonReader> {
  const check = (chain: string, network: string) => {
    if (!servesNetwork(chain, network)) throw new BaseError('validation_failed', `@walletd/plugin-ton does not serve ${chain}/${network}`);
  };
  return {
    apiVersion: PLUGIN_API_VERSION,
    name: '@walletd/plugin-ton',
    chains: TON_CHAINS,
    detectModule: require.resolve('./detect'),
    validateAddress: (_chain, network, address) => parseTonAddress(network, address) !== null,
    matchKey: (_chain, network, address) => tonMatchKey(network, address),
    // A friendly form keeps its bounce flag (it tells a sender how to send); a raw one (a match key) shows as deposit addresses do, non-bounceable.
    formatAddress: (_chain, network, address) => {
      const parsed = parseTonAddress(network, address);
      if (!parsed) throw new BaseError('invalid_address', `"${address}" is not a valid TON address for ${network}`);
      const bounceable = Address.isFriendly(address) ? Address.parseFriendly(address).isBounceable : false;
      return parsed.toString({ bounceable, urlSafe: true, testOnly: isTestNetwork(network) });
    },
    deriveAddress: (chain, network, secret, index) => {
      check(chain, network);
      const seed = secret.seed();
      try {
        return deriveTonAddress(network, seed, index);
      } finally {
        seed.fill(0);
      }
    },
    addressOfKey: (chain, network, signer) => {
      check(chain, network);
      return addressOfTonKey(network, signer);
    },
    tokenAccounts: (chain, network, owner, tokens, reader) => {
      check(chain, network);
      return jettonWallets(owner, tokens, reader);
    },
    createReader: (chain, network, options) => {
      check(chain, network);
      return createTonReader(network, options);
    },
    confirm: confirmByDepth,
    withdrawals: createTonWithdrawals(),
  };
}
