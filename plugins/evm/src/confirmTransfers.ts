import type { ConfirmDecision, ConfirmInput } from '@walletd/core';

/**
 * EVM finality: a transfer is final when `threshold` blocks cover it (its own counts), or when
 * the node's finalized block does. Detached transfers (a reorg removed their block) are decided
 * by the follower once it has followed the new chain: they are not in a block here, so they wait.
 */
export function confirmTransfers(input: ConfirmInput): ConfirmDecision[] {
  const deepest = input.finality === 'finalized' ? (input.finalized ?? -1n) : input.head - BigInt(input.threshold) + 1n;
  const out: ConfirmDecision[] = [];
  for (const t of input.pending) {
    if (t.blockNumber === null || t.blockNumber > deepest) continue;
    out.push({ id: t.id, status: 'confirmed', confirmations: Number(input.head - t.blockNumber + 1n) });
  }
  return out;
}
