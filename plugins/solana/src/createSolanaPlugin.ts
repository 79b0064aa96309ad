import { BaseError, type ChainPlugin, PLUGIN_API_VERSION, confirmByDepth } from '@walletd/plugin-kit';
import { addressOfPublicKey, deriveSolanaAddress, solanaMatchKey, validateSolanaAddress } from './addresses';
import { SOLANA_CHAINS, servesNetwork } from './networks';
import { type SolanaReader, createSolanaReader } from './reader';
import { solanaTokenAccounts } from './verbs/tokenAccounts';
import { createSolanaWithdrawals } from './verbs';

export const SOLANA_PLUGIN_NAME = '@walletd/plugin-solana';

/**
 * Solana: SOL and allow-listed SPL tokens (Token-2022 mints when listed with their program).
 * Addresses are ed25519 keys by SLIP-10 at m/44'/501'/i'/0'; each deposit address's associated
 * token account per allow-listed mint is its token account (contract v2 `tokenAccounts`).
 */
export function createSolanaPlugin(): ChainPlugin<SolanaReader> {
  const serve = (chain: string, network: string) => {
    if (!servesNetwork(chain, network))
      throw new BaseError('validation_failed', `${SOLANA_PLUGIN_NAME} does not serve ${chain}/${network}`);
  };
  return {
    apiVersion: PLUGIN_API_VERSION,
    name: SOLANA_PLUGIN_NAME,
    chains: SOLANA_CHAINS,
    detectModule: require.resolve('./detect'),
    validateAddress: (_chain, _network, address) => validateSolanaAddress(address),
    matchKey: (_chain, _network, address) => solanaMatchKey(address),
    formatAddress: (_chain, _network, address) => address,
    deriveAddress: (chain, network, secret, index) => {
      serve(chain, network);
      const seed = secret.seed();
      try {
        return deriveSolanaAddress(seed, index);
      } finally {
        seed.fill(0);
      }
    },
    addressOfKey: (chain, network, signer) => {
      serve(chain, network);
      if (signer.curve !== 'ed25519') throw new BaseError('internal', 'a Solana address needs an ed25519 key');
      const address = addressOfPublicKey(signer.publicKey());
      return { address, matchKey: address };
    },
    tokenAccounts: async (chain, network, owner, tokens) => {
      serve(chain, network);
      return solanaTokenAccounts(owner, tokens);
    },
    createReader: (_chain, _network, options) => createSolanaReader(options),
    confirm: confirmByDepth,
    withdrawals: createSolanaWithdrawals(),
  };
}
