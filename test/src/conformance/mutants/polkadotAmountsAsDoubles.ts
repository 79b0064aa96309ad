import type { DetectFn } from '@walletd/plugin-kit';
import { realDetectOf } from './families';

/** Mutant: reads u128 amounts through a JavaScript number, so an amount above 2^53 planck is rounded. */
export const detect: DetectFn = (raw, ctx) => {
  const result = realDetectOf('polkadot')(raw, ctx);
  return { ...result, transfers: result.transfers.map((t) => ({ ...t, amount: BigInt(Number(t.amount)) })) };
};
