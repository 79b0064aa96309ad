import { BaseError } from '../errors';

export type NodeErrorKind = 'timeout' | 'unreachable' | 'http' | 'rpc' | 'too_large' | 'wrong_height';

export interface NodeCallFailure {
  method: string;
  kind: NodeErrorKind;
  /** Attempts made (transport failures). */
  attempts?: number;
  /** The JSON-RPC error code (kind `rpc`). */
  rpcCode?: number | null;
  /** The HTTP status (kind `http`). */
  status?: number;
  /** The cap an answer went over (kind `too_large`). */
  limit?: number;
}

const RETRIED_KINDS: ReadonlySet<NodeErrorKind> = new Set(['timeout', 'unreachable', 'http']);

/** A node call that failed: `node_error`, with what happened for logs and callers (never credentials). */
export class NodeCallError extends BaseError {
  readonly node: NodeCallFailure;
  constructor(message: string, node: NodeCallFailure) {
    // No answer may come next time; an answer (a refusal, a wrong height, too many bytes) comes again.
    super('node_error', message, { retriable: RETRIED_KINDS.has(node.kind) });
    this.node = node;
  }
}

/** The `node_error` of an answer over the cap, naming the chain and the setting that raises it. */
export function tooLargeError(name: string | undefined, method: string, limit: number): NodeCallError {
  const who = name ? `${name}: ` : '';
  return new NodeCallError(
    `${who}${method} answered more than ${limit} bytes; reading stopped (raise chains[].maxResponseBytes if the node is right)`,
    { method, kind: 'too_large', attempts: 1, limit },
  );
}
