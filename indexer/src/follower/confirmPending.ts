import { BaseError } from '@walletd/core';
import type { FollowerContext } from './followerContext';
import { applyDecisions, pendingTransfers } from '../store/transferStore';

/** The node's finalized height where the chain's rule uses it (`finalized`), else null. */
export async function finalizedHeight(ctx: FollowerContext): Promise<bigint | null> {
  const { finality, reader, plugin, key } = ctx;
  if (finality !== 'finalized') return null;
  if (!reader.finalized)
    throw new BaseError('chain_not_supported', `${plugin.name} cannot report a finalized block for ${key.chain}/${key.network}`);
  return reader.finalized();
}

/** The plugin decides what is final (its `confirm` verb); the store records it with events. */
export async function confirmPending(ctx: FollowerContext, head: bigint, finalized: bigint | null): Promise<number> {
  const { db, key, plugin, threshold, finality, assets, fence } = ctx;
  const pending = await pendingTransfers(db, key);
  const decisions = plugin.confirm({ pending, head, finalized, threshold, finality });
  return applyDecisions(db, key, decisions, assets.byKey, fence);
}
