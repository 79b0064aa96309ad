import type { DetectFn } from '@walletd/plugin-kit';
import { realDetect } from './realDetect';

type Frame = { error?: string; calls?: Frame[] };
/** Drops the reverted frames' errors: a value call under a caught revert shows none of its own. */
const forget = (f: Frame) => {
  delete f.error;
  for (const c of f.calls ?? []) forget(c);
};

/** Mutant: credits a value call inside a reverted frame (checks each frame's own error only, not its ancestors'). */
export const detect: DetectFn = (raw, ctx) => {
  const parsed = JSON.parse(new TextDecoder().decode(raw)) as {
    callTraces?: { result?: Frame }[] | { result?: { result?: Frame }[] };
    flatTraces?: { error?: string; traceAddress: number[] }[];
  };
  const items = Array.isArray(parsed.callTraces) ? parsed.callTraces : (parsed.callTraces?.result ?? []);
  // A reverted frame keeps its error only where it has no children to hide (so leaf failures still count).
  for (const item of Array.isArray(items) ? items : []) for (const c of item.result?.calls ?? []) if (c.calls?.length) forget(c);
  for (const t of Array.isArray(parsed.flatTraces) ? parsed.flatTraces : []) if (t.traceAddress.length > 0) delete t.error;
  return realDetect(new TextEncoder().encode(JSON.stringify(parsed)), ctx);
};
