import type { DetectFn } from '@walletd/plugin-kit';
import { realDetect } from './realDetect';

const ZERO = `0x${'0'.repeat(64)}`;
const ONE = `0x${'0'.repeat(63)}1`;

/** Mutant: credits a Transfer log of 0 (as the EVM plugin did before issue 41: address poisoning). */
export const detect: DetectFn = (raw, ctx) => {
  const parsed = JSON.parse(new TextDecoder().decode(raw)) as { receipts: { logs: { data: string; logIndex: string }[] }[] };
  const zero = new Set<number>();
  for (const r of parsed.receipts)
    for (const l of r.logs)
      if (l.data === ZERO) {
        zero.add(Number(l.logIndex));
        l.data = ONE;
      }
  const result = realDetect(new TextEncoder().encode(JSON.stringify(parsed)), ctx);
  for (const t of result.transfers) if (t.logIndex !== undefined && zero.has(t.logIndex)) t.amount = 0n;
  return result;
};
