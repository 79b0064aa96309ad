import { rewritingJson } from './families';

/** Mutant: reads every Tron call as successful (contractRet and receipt), so a reverted TRC-20 transfer is credited. */
export const detect = rewritingJson('tron', (b) => {
  for (const tx of b.block?.transactions ?? []) tx.ret = [{ contractRet: 'SUCCESS' }];
  for (const info of b.infos ?? []) if (info.receipt) info.receipt.result = 'SUCCESS';
});
