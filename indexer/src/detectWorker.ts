import type { AssetRef, Chain, DetectFn, DetectResult, TokenDefinition } from '@walletd/core';
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
}

const detectors = new Map<string, DetectFn>();
const views = new WeakMap<SharedArrayBuffer, SharedAddressView>();

/** Piscina worker entry: loads the plugin's detect module once per thread and runs it. */
export default function runDetect(task: DetectTask): DetectResult {
  let detect = detectors.get(task.detectModule);
  if (!detect) {
    detect = (require(task.detectModule) as { detect: DetectFn }).detect;
    if (typeof detect !== 'function') throw new Error(`${task.detectModule} exports no detect()`);
    detectors.set(task.detectModule, detect);
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
