import { observeNodeCalls } from '@walletd/plugin-kit';
import type { Metrics } from './metrics';

// A transport's name for what it called is code (a method, a path), but bounded all the same.
const MAX_METHODS = 200;

/**
 * `walletd_node_call_duration_seconds{chain,network,method}`: every node call the kit's HTTP
 * transports make in this process (JSON-RPC and REST; not XRP's WebSocket), timed from the first
 * attempt to the answer or the last failure. The label is the method (`eth_getBlockByNumber`) or
 * REST path (`/wallet/getnowblock`) the transport names, never the URL; past MAX_METHODS distinct
 * ones, further names are counted as `other`.
 */
export function countNodeCalls(metrics: Metrics): void {
  const methods = new Set<string>();
  observeNodeCalls(({ name, what, seconds }) => {
    const [chain = 'unknown', network = 'unknown'] = (name ?? '').split('/');
    if (!methods.has(what) && methods.size < MAX_METHODS) methods.add(what);
    const method = methods.has(what) ? what : 'other';
    metrics.nodeCallDuration.observe({ chain: chain || 'unknown', network, method }, seconds);
  });
}
