import type { DetectFn } from '@walletd/plugin-kit';
import { realDetectOf } from './families';

/** Mutant: drops the text comment of a TON transfer (a deposit told apart by memo goes unattributed). */
export const detect: DetectFn = (raw, ctx) => {
  const result = realDetectOf('ton')(raw, ctx);
  return { ...result, transfers: result.transfers.map((t) => ({ ...t, extra: { ...t.extra, memo: null } })) };
};
