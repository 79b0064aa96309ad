import type { DetectFn } from '@walletd/plugin-kit';
import { realDetect } from './realDetect';

/** Mutant: drops `from`/`fromKey` and `eventType` (internal movements would be announced as deposits). */
export const detect: DetectFn = (raw, ctx) => {
  const result = realDetect(raw, ctx);
  return { ...result, transfers: result.transfers.map(({ from: _f, fromKey: _k, ...t }) => ({ ...t, eventType: '' })) };
};
