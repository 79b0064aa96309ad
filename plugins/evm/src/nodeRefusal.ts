import { BaseError, triageNodeError } from '@walletd/plugin-kit';

/**
 * JSON-RPC errors that are about the node, not the transaction: it could not parse our request,
 * lacks the method, failed inside, or is out of capacity (EIP-1474: -32002 resource unavailable,
 * -32004 method not supported, -32005 limit exceeded).
 */
const NODE_FAILURE_CODES: ReadonlySet<number> = new Set([-32700, -32600, -32601, -32603, -32002, -32004, -32005]);

/** geth and others answer these with the generic -32000: the node's state, not the transaction. */
const BUSY = ['txpool is full', 'transaction pool is full', 'too many requests', 'rate limit', 'header not found', 'try again'];

/**
 * The one place an EVM node's error becomes an API error. The node did not answer (timeout,
 * unreachable, HTTP failure) or answered about itself (NODE_FAILURE_CODES, BUSY): 502
 * `node_error`, retry later. It answered and refused this very transaction (a revert in the gas
 * estimate, code 3; a txpool rule, -32000): the caller's, never a 5xx: 409 `conflict` when
 * preparing again fixes it (nonce used, fees too low), 422 `insufficient_funds`, else 422
 * `unprocessable` with the node's reason. The node words txpool rules only in `message` (one code,
 * -32000, for all of them), so those are told apart by their text here and nowhere else.
 */
export function nodeRefusal(e: unknown): BaseError {
  return triageNodeError(e, {
    nodeFailureCodes: NODE_FAILURE_CODES,
    aboutTheNode: (m) => BUSY.some((b) => m.includes(b)),
    nodeErrorText: 'the node did not answer',
    verdict: (m) => {
      if (m.includes('insufficient funds')) return new BaseError('insufficient_funds', 'insufficient funds for the amount plus gas');
      if (m.includes('nonce too low')) return new BaseError('conflict', 'the nonce was already used (nonce too low)');
      if (m.includes('underpriced') || m.includes('fee too low') || m.includes('max fee per gas less than block base fee'))
        return new BaseError('conflict', 'the transaction is underpriced for the current fees');
      return undefined;
    },
  });
}
