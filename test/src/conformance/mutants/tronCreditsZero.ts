import type { DetectFn } from '@walletd/plugin-kit';
import { realDetectOf } from './families';

const ZERO = '0'.repeat(64);

/** Mutant: credits a TRC-20 Transfer log of 0 (address poisoning). */
export const detect: DetectFn = (raw, ctx) => {
  const parsed = JSON.parse(new TextDecoder().decode(raw)) as { infos?: { id: string; log?: { data?: string }[] }[] };
  const zero = new Set<string>();
  for (const info of parsed.infos ?? [])
    (info.log ?? []).forEach((l, i) => {
      if (l.data !== ZERO) return;
      zero.add(`${info.id}:${i + 1}`);
      l.data = `${'0'.repeat(63)}1`;
    });
  const result = realDetectOf('tron')(new TextEncoder().encode(JSON.stringify(parsed)), ctx);
  for (const t of result.transfers) if (zero.has(`${t.txHash}:${t.eventIndex}`)) t.amount = 0n;
  return result;
};
