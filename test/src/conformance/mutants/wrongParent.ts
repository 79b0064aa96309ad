import type { DetectFn } from '@walletd/plugin-kit';
import { realDetect } from './realDetect';

/** Mutant: reports the block's own hash as its parent (the follower would miss every reorg). */
export const detect: DetectFn = (raw, ctx) => {
  const result = realDetect(raw, ctx);
  return { ...result, block: { ...result.block, parentHash: result.block.hash } };
};
