import type { ChainReader, Db } from '@walletd/core';
import type { Fence } from '../types';
import { ChainHaltedError } from '../lease/chainHalt';
import type { ChainKey } from '../types';

/**
 * The node must still serve the chain that was indexed: its block 0 and (where the reader knows
 * one) its chain id are recorded the first time and compared on every round; a network declared in
 * `chains[]` must also report the chain id the entry gives. A node swapped for
 * another network, or a devnet whose state was reset, stops the chain instead of being indexed on
 * top of the old one.
 */
export async function checkChainIdentity(
  db: Db,
  key: ChainKey,
  reader: ChainReader,
  fence?: Fence,
  expectedChainId?: number,
): Promise<void> {
  const genesis = await reader.blockHash(0n);
  const chainId = reader.chainId ? await reader.chainId() : null;
  // A network declared in chains[] names its chain id: a node of another network is never indexed under its name.
  if (expectedChainId !== undefined && chainId !== String(expectedChainId))
    throw new ChainHaltedError(
      key,
      'chain_id_mismatch',
      `the node at rpcUrl reports chain id ${chainId ?? 'none'}, chains[] declares ${key.chain}/${key.network} with chainId ${expectedChainId}; point rpcUrl at that network's node, or correct chainId`,
    );
  // A backend that cannot serve block 0 (pruned, or still starting) gives nothing to compare; the
  // parent-hash checks still stop a chain that does not link.
  if (genesis === null) return;
  const recorded = (await db('followed_chains').where(key).first('genesis_hash', 'chain_id')) as
    | { genesis_hash: string; chain_id: string | null }
    | undefined;
  if (recorded && recorded.genesis_hash !== '') {
    if (recorded.genesis_hash !== genesis)
      throw new ChainHaltedError(
        key,
        'genesis_changed',
        `the node's block 0 is ${genesis}, the indexed chain's is ${recorded.genesis_hash}; point rpcUrl at the indexed chain, or forget the chain's index to start over`,
      );
    if (recorded.chain_id !== null && chainId !== null && recorded.chain_id !== chainId)
      throw new ChainHaltedError(
        key,
        'chain_id_changed',
        `the node reports chain id ${chainId}, the indexed chain's is ${recorded.chain_id}`,
      );
    return;
  }
  await db.transaction(async (trx) => {
    await fence?.(trx);
    await trx('followed_chains')
      .insert({ ...key, genesis_hash: genesis, chain_id: chainId })
      .onConflict(['chain', 'network'])
      .merge(['genesis_hash', 'chain_id', 'recorded_at']);
  });
}
