import { type ChainDefinition, amountCeiling, isChain, networkInfo } from '@walletd/plugin-kit';

/**
 * What a plugin declares as data about its chain (issue 31 item 2: `testnet`, `native`,
 * `amountCeiling`) against walletd's own table, while both exist: the first difference in words,
 * or undefined. Undeclared data is not a difference (contract-2 plugins written before it). Once
 * the table is built from the plugins alone (`chainTableOf`), this check goes with it.
 */
export function declaredChainDataDifference(c: ChainDefinition): string | undefined {
  if (!isChain(c.chain)) return undefined;
  for (const n of c.networks) {
    const known = networkInfo(c.chain, n.network);
    if (!known) continue;
    if (n.testnet !== undefined && n.testnet !== known.testnet)
      return `${c.chain}/${n.network} declares testnet ${n.testnet}; walletd's table has ${known.testnet}`;
    if (n.native && (n.native.symbol !== known.native.symbol || n.native.decimals !== known.native.decimals))
      return `${c.chain}/${n.network} declares native ${n.native.symbol} with ${n.native.decimals} decimals; walletd's table has ${known.native.symbol} with ${known.native.decimals}`;
  }
  const ceiling = c.amountCeiling;
  if (ceiling) {
    const native = amountCeiling(c.chain, true);
    const token = amountCeiling(c.chain, false);
    if (ceiling.native !== native || ceiling.token !== token)
      return `${c.chain} declares amount ceilings ${ceiling.native} (native) / ${ceiling.token} (token); walletd's table has ${native} / ${token}`;
  }
  return undefined;
}
