/** One node call as the observer sees it: who the node serves ("ethereum/mainnet"), the method or path, how long, whether it answered. */
export interface ObservedNodeCall {
  name: string | undefined;
  /** The JSON-RPC method or the REST path, as the transport names it (a batch: `<method> batch`). */
  what: string;
  seconds: number;
  ok: boolean;
}

let observer: ((call: ObservedNodeCall) => void) | null = null;

/**
 * Sets the process's one observer of node calls (`walletd serve` counts them into its metrics:
 * `walletd_node_call_duration_seconds`); null stops. The kit has no metrics of its own: a plugin's
 * tests and a detect worker never set one, and then a call costs one null check.
 */
export function observeNodeCalls(fn: ((call: ObservedNodeCall) => void) | null): void {
  observer = fn;
}

/** Times `call` for the observer, retries included (what a caller waits for). */
export async function observedNodeCall<T>(name: string | undefined, what: string, call: () => Promise<T>): Promise<T> {
  const watching = observer;
  if (!watching) return call();
  const started = performance.now();
  let ok = false;
  try {
    const answer = await call();
    ok = true;
    return answer;
  } finally {
    try {
      watching({ name, what: what.replace(/ ×\d+$/, ' batch'), seconds: (performance.now() - started) / 1000, ok });
    } catch {
      // An observer's failure is no node call's.
    }
  }
}
