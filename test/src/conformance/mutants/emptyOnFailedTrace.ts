import type { DetectFn } from '@walletd/plugin-kit';
import { realDetect } from './realDetect';

/** Mutant: a trace answer that failed (an error, null, a short list) is read as "no internal transfers". */
export const detect: DetectFn = (raw, ctx) => {
  const parsed = JSON.parse(new TextDecoder().decode(raw)) as { block: { transactions: unknown[] }; callTraces?: unknown };
  const answer = parsed.callTraces as { result?: unknown; error?: unknown } | unknown[] | undefined;
  const usable = Array.isArray(answer)
    ? answer.length === parsed.block.transactions.length
    : answer !== undefined &&
      answer !== null &&
      !(answer as { error?: unknown }).error &&
      Array.isArray((answer as { result?: unknown }).result);
  if (answer !== undefined && !usable) delete parsed.callTraces;
  return realDetect(new TextEncoder().encode(JSON.stringify(parsed)), ctx);
};
