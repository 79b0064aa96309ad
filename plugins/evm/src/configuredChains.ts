import { BaseError, type ChainDefinition, type ConfiguredNetwork } from '@walletd/plugin-kit';
import { EVM_CAPABILITIES, EVM_CHAINS, UINT256_BOTH } from './networks';

/**
 * The shipped EVM chains plus the EVM networks the operator declared in `chains[]`
 * (`family: "evm"`), each under its configured name: the same addresses, logs and verbs serve
 * them. A configured name may not be a shipped chain's: an operator's "ethereum" with another
 * chain id would silently mean two networks.
 */
export function evmChainsWith(configured: readonly ConfiguredNetwork[] = []): ChainDefinition[] {
  const own = configured.filter((n) => n.family === 'evm');
  if (own.length === 0) return EVM_CHAINS;
  const added = new Map<string, ChainDefinition>();
  for (const n of own) {
    if (EVM_CHAINS.some((c) => c.chain === n.chain))
      throw new BaseError(
        'config_invalid',
        `chains[]: "${n.chain}" is a built-in chain; an EVM network declared with family "evm" needs a name of its own (e.g. "base")`,
      );
    const def = added.get(n.chain) ?? {
      chain: n.chain,
      addressing: 'key-per-address' as const,
      capabilities: EVM_CAPABILITIES,
      keyHeldInToken: 'secp256k1',
      amountCeiling: UINT256_BOTH,
      networks: [],
    };
    if (def.networks.some((x) => x.network === n.network))
      throw new BaseError('config_invalid', `chains[]: ${n.chain}/${n.network} is declared twice`);
    def.networks.push({
      network: n.network,
      chainId: n.chainId,
      defaultConfirmations: n.defaultConfirmations,
      finality: n.finality,
      testnet: n.testnet,
      native: n.native,
    });
    added.set(n.chain, def);
  }
  return [...EVM_CHAINS, ...added.values()];
}
