import { DEFAULT_MAX_RESPONSE_BYTES } from './readCapped';
import type { NodeRequest } from './requestNode';

/** The options of a plugin's REST transport over `requestNode` (java-tron's HTTP API, toncenter). */
export interface NodeHttpOptions {
  url: string;
  /** Per attempt; default 15000, as the JSON-RPC client. */
  timeoutMs?: number;
  /** Further attempts of an idempotent call after a transport failure; default 2. */
  retries?: number;
  /** First pause between attempts (before jitter), doubled each time. */
  backoffMs?: number;
  /** The most bytes one answer may have (`chains[].maxResponseBytes`); default 64 MiB. */
  maxResponseBytes?: number;
  /** Who the node serves ("tron/mainnet"), for messages. */
  name?: string;
}

/**
 * What `requestNode` needs besides the method, headers and body, under the kit's node-call rules:
 * one deadline per attempt, the answer capped, an idempotent read retried, a publishing call
 * (`idempotent` false) tried once. The same defaults as `createJsonRpcClient`.
 */
export function nodeHttpLimits(
  options: NodeHttpOptions,
  idempotent: boolean,
): Pick<NodeRequest, 'timeoutMs' | 'maxBytes'> & { attempts: number; backoffMs?: number; name?: string } {
  return {
    timeoutMs: options.timeoutMs ?? 15_000,
    maxBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    attempts: idempotent ? 1 + (options.retries ?? 2) : 1,
    ...(options.backoffMs !== undefined ? { backoffMs: options.backoffMs } : {}),
    ...(options.name !== undefined ? { name: options.name } : {}),
  };
}
