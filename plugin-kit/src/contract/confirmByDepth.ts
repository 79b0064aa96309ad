import type { ConfirmDecision, ConfirmInput } from './contract';

/**
 * Depth finality, shared by the plugins of chains with blocks (EVM, UTXO): a transfer is final when
 * `threshold` blocks cover it (its own counts), or when the node's finalized block does. Transfers
 * in no block (a mempool detection, or detached by a reorg) wait: the follower decides detached
 * ones once it has followed the new chain.
 */
export function confirmByDepth(input: ConfirmInput): ConfirmDecision[] {
  const deepest = input.finality === 'finalized' ? (input.finalized ?? -1n) : input.head - BigInt(input.threshold) + 1n;
  const out: ConfirmDecision[] = [];
  for (const t of input.pending) {
    if (t.blockNumber === null || t.blockNumber > deepest) continue;
    out.push({ id: t.id, status: 'confirmed', confirmations: Number(input.head - t.blockNumber + 1n) });
  }
  return out;
}
