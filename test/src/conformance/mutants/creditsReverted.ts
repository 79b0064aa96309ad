import type { DetectFn } from '@walletd/plugin-kit';
import { realDetect } from './realDetect';

/** Mutant: reads every receipt as successful, so a reverted transaction is credited. */
export const detect: DetectFn = (raw, ctx) => {
  const parsed = JSON.parse(new TextDecoder().decode(raw)) as { receipts: { status?: string }[] };
  for (const r of parsed.receipts) r.status = '0x1';
  return realDetect(new TextEncoder().encode(JSON.stringify(parsed)), ctx);
};
