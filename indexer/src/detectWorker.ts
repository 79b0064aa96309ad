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

const detectors = new Map<string, DetectFn | DetectMempoolFn>();
const views = new WeakMap<SharedArrayBuffer, SharedAddressView>();

/** Piscina worker entry: loads the plugin's detect module once per thread and runs it. */
export default function runDetect(task: DetectTask): DetectResult | DetectedTransfer[] {
  const entry = task.entry ?? 'detect';
  const id = `${task.detectModule}#${entry}`;
  let detect = detectors.get(id);
  if (!detect) {
    detect = (require(task.detectModule) as Record<string, DetectFn | DetectMempoolFn>)[entry];
    if (typeof detect !== 'function') throw new Error(`${task.detectModule} exports no ${entry}()`);
    detectors.set(id, detect);
  }
  let watched = views.get(task.watched.buffer);
  if (!watched) {
    watched = new SharedAddressView(task.watched);
    views.set(task.watched.buffer, watched);
  }
  return detect(task.raw, {
    chain: task.chain,
    network: task.network,
    native: task.native,
    tokens: new Map(task.tokens.map((t) => [t.matchKey, t])),
    watched,
  });
}
