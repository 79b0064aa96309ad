import type { ChainPlugin } from '@walletd/plugin-kit';

/**
 * Issue 41's mutant "keeps a deep-reorged credit": the real plugin, whose `confirm` also confirms
 * a transfer that is in no block (one a reorg took out of its block), at the threshold, as if the
 * depth it had before still held. The indexer alone retracts a confirmed deposit a deeper reorg
 * removed (it never reaches `confirm`), so this is the one place a plugin can keep such a credit:
 * the kit's finality check must fail it.
 */
export function keepsReorgedCredit(real: ChainPlugin): ChainPlugin {
  return {
    ...real,
    confirm: (input) => {
      const honest = real.confirm(input);
      const decided = new Set(honest.map((d) => d.id));
      const detached = input.pending.filter((p) => p.blockNumber === null && !decided.has(p.id));
      return [...honest, ...detached.map((p) => ({ id: p.id, status: 'confirmed' as const, confirmations: input.threshold }))];
    },
  };
}
