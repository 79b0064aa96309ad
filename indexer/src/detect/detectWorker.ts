import type { AssetRef, Chain, DetectFn, DetectMempoolFn, DetectResult, DetectedTransfer, TokenDefinition } from '@walletd/core';
import { SharedAddressView, type SharedAddressTable } from './sharedAddressSet';

/** What one detect task carries: the raw block (transferred), and references, not copies. */
export interface DetectTask {
  detectModule: string;
  raw: Uint8Array;
  chain: Chain;
  network: string;
  native: AssetRef;
  tokens: TokenDefinition[];
  watched: SharedAddressTable;
  /** `detectMempool` for mempool transactions; `detect` (a block) by default. */
  entry?: 'detect' | 'detectMempool';
}

/**
 * A detect that threw a `BaseError` (a failed read with its `details.reason`, e.g.
 * `traces_unavailable`): returned as this, since an error crossing the thread keeps only its
 * message; the pool throws it again on the main thread (detectPool.ts).
 */
export interface DetectFailure {
  detectFailed: { code: string; message: string; details?: Record<string, unknown> };
}

const detectors = new Map<string, DetectFn | DetectMempoolFn>();
const views = new WeakMap<SharedArrayBuffer, SharedAddressView>();

/** Piscina worker entry: loads the plugin's detect module once per thread and runs it. */
export default function runDetect(task: DetectTask): DetectResult | DetectedTransfer[] | DetectFailure {
  const entry = task.entry ?? 'detect';
  const id = `${task.detectModule}#${entry}`;
  let detect = detectors.get(id);
  if (!detect) {
    detect = (require(task.detectModule) as Record<string, DetectFn | DetectMempoolFn>)[entry];
    // Told as a failure the pool throws again as BaseError('internal') on the calling thread:
    // importing BaseError here would load all of @walletd/core into every worker thread.
    if (typeof detect !== 'function') return { detectFailed: { code: 'internal', message: `${task.detectModule} exports no ${entry}()` } };
    detectors.set(id, detect);
  }
  let watched = views.get(task.watched.buffer);
  if (!watched) {
    watched = new SharedAddressView(task.watched);
    views.set(task.watched.buffer, watched);
  }
  try {
    return detect(task.raw, {
      chain: task.chain,
      network: task.network,
      native: task.native,
      tokens: new Map(task.tokens.map((t) => [t.matchKey, t])),
      watched,
    });
  } catch (err) {
    // By shape, not class: a plugin may carry its own copy of the kit.
    const e = err as { name?: unknown; code?: unknown; message?: unknown; details?: unknown };
    if (err instanceof Error && e.name === 'BaseError' && typeof e.code === 'string')
      return {
        detectFailed: { code: e.code, message: err.message, ...(e.details ? { details: e.details as Record<string, unknown> } : {}) },
      };
    throw err;
  }
}
