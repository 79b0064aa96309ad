import { BaseError } from '../errors';
import { NodeCallError } from './nodeCallError';
import { nodeAnswerOf } from './nodeAnswerOf';

/** What one chain's node says about itself and about a transaction (each plugin's `nodeRefusal.ts`). */
export interface NodeErrorTriage {
  /** JSON-RPC codes about the node, not the transaction (our request, a missing method, overload). */
  nodeFailureCodes?: ReadonlySet<number>;
  /** Further answers about the node itself (its text, an HTTP status), given the lowercased message. */
  aboutTheNode?: (m: string, answer: NodeCallError) => boolean;
  /** How the 502 begins, before the node's message: "the node did not answer". */
  nodeErrorText: string;
  /** The chain's verdict on the transaction from the lowercased message; undefined: 422 `unprocessable`. */
  verdict?: (m: string, answer: NodeCallError) => BaseError | undefined;
}

/**
 * The one shape of node-error triage every plugin's `nodeRefusal` follows. No answer (timeout,
 * unreachable, HTTP failure) or an answer about the node itself: 502 `node_error`, retry later. A
 * typed error passes unchanged. An answer that judges this very transaction is the caller's, never
 * a 5xx: the chain's `verdict` (409 when preparing again fixes it, 422 `insufficient_funds`), else
 * 422 `unprocessable` with the node's reason.
 */
export function triageNodeError(e: unknown, triage: NodeErrorTriage): BaseError {
  const answer = nodeAnswerOf(e);
  if (!(answer instanceof NodeCallError)) return answer;
  const { kind, rpcCode } = answer.node;
  const message = answer.message;
  const m = message.toLowerCase();
  if (kind !== 'rpc' || (typeof rpcCode === 'number' && triage.nodeFailureCodes?.has(rpcCode)) || triage.aboutTheNode?.(m, answer))
    return new BaseError('node_error', `${triage.nodeErrorText}: ${message.slice(0, 200)}`, { cause: e });
  return (
    triage.verdict?.(m, answer) ??
    new BaseError('unprocessable', `the node refused the transaction: ${message.slice(0, 200)}`, { cause: e })
  );
}
