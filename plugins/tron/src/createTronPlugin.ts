import { BaseError, type ChainPlugin, PLUGIN_API_VERSION, confirmByDepth } from '@walletd/plugin-kit';
import { deriveTronAddress, formatTronAddress, matchKeyOfPublicKey, tronMatchKey, validateTronAddress } from './addresses';
import { TRON_CHAINS, servesNetwork } from './networks';
import { type TronReader, createTronReader } from './reader';
import { createTronWithdrawals } from './verbs';

/** Tron mainnet, nile, shasta (and a local devnet name): TRX and allow-listed TRC-20 tokens. */
export function createTronPlugin(): ChainPlugin<TronReader> {
  const check = (chain: string, network: string) => {
    if (!servesNetwork(chain, network)) throw new BaseError('validation_failed', `@walletd/plugin-tron does not serve ${chain}/${network}`);
  };
  return {
    apiVersion: PLUGIN_API_VERSION,
    name: '@walletd/plugin-tron',
    chains: TRON_CHAINS,
    detectModule: require.resolve('./detect'),
    validateAddress: (_chain, _network, address) => validateTronAddress(address),
    matchKey: (_chain, _network, address) => tronMatchKey(address),
    formatAddress: (_chain, _network, address) => formatTronAddress(address),
    deriveAddress: (chain, network, secret, index) => {
      check(chain, network);
      const seed = secret.seed();
      try {
        return deriveTronAddress(seed, index);
      } finally {
        seed.fill(0);
      }
    },
    addressOfKey: (chain, network, signer) => {
      check(chain, network);
      if (signer.curve !== 'secp256k1') throw new BaseError('internal', 'a Tron address needs a secp256k1 key');
      const matchKey = matchKeyOfPublicKey(signer.publicKey());
      return { address: formatTronAddress(matchKey), matchKey };
    },
    createReader: (chain, network, options) => {
      check(chain, network);
      return createTronReader(options);
    },
    confirm: confirmByDepth,
    withdrawals: createTronWithdrawals(),
  };
}
