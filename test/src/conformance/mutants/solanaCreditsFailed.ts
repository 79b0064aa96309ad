import { rewritingJson } from './families';

/** Mutant: ignores `meta.err`, so a failed Solana transaction's balance arrays are credited. */
export const detect = rewritingJson('solana', (b) => {
  for (const tx of b.block?.result?.transactions ?? b.block?.transactions ?? []) if (tx.meta) tx.meta.err = null;
});
