import { BaseError, type ChainPlugin, PLUGIN_API_VERSION, confirmByDepth } from '@walletd/plugin-kit';
import { addressOfPublicKey, deriveUtxoAddress, formatUtxoAddress, utxoMatchKey, validateUtxoAddress } from './addresses';
import { UTXO_CHAINS } from './networks';
import { createUtxoReader } from './reader';
import { createUtxoWithdrawals } from './verbs';

/**
 * Bitcoin and Dogecoin from one codebase: per-network parameters, outputs matched by script,
 * deposits from blocks and the mempool, withdrawals with coin selection over the wallet's
 * addresses and PSBT signing.
 */
export function createUtxoPlugin(): ChainPlugin {
  return {
    apiVersion: PLUGIN_API_VERSION,
    name: '@walletd/plugin-utxo',
    chains: UTXO_CHAINS,
    detectModule: require.resolve('./detect'),
    validateAddress: validateUtxoAddress,
    matchKey: utxoMatchKey,
    formatAddress: formatUtxoAddress,
    deriveAddress: (chain, network, secret, index) => {
      const seed = secret.seed();
      try {
        return deriveUtxoAddress(chain, network, seed, index);
      } finally {
        seed.fill(0);
      }
    },
    deriveChangeAddress: (chain, network, secret, index) => {
      const seed = secret.seed();
      try {
        return deriveUtxoAddress(chain, network, seed, index, 1);
      } finally {
        seed.fill(0);
      }
    },
    addressOfKey: (chain, network, signer) => {
      if (signer.curve !== 'secp256k1') throw new BaseError('internal', `a ${chain} address needs a secp256k1 key`);
      return addressOfPublicKey(chain, network, signer.publicKey());
    },
    createReader: (chain, network, options) => createUtxoReader({ ...options, scriptOf: (a) => utxoMatchKey(chain, network, a) }),
    confirm: confirmByDepth,
    withdrawals: createUtxoWithdrawals(),
  };
}
