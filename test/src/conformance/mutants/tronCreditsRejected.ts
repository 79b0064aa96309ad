import { rewritingJson } from './families';

/** Mutant: reads every internal transaction as not rejected, so TRX a reverted frame never sent is credited. */
export const detect = rewritingJson('tron', (b) => {
  for (const info of b.infos ?? []) for (const internal of info.internal_transactions ?? []) delete internal.rejected;
});
