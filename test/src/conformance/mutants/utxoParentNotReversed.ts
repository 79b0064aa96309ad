import type { DetectFn } from '@walletd/plugin-kit';
import { realDetectOf } from './families';

/** Mutant: reports the header's previous-block field in wire byte order, not reversed as block hashes are shown. */
export const detect: DetectFn = (raw, ctx) => {
  const result = realDetectOf('utxo')(raw, ctx);
  const parentHash = Buffer.from(result.block.parentHash, 'hex').reverse().toString('hex');
  return { ...result, block: { ...result.block, parentHash } };
};
