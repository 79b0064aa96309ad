import { BaseError, triageNodeError } from '@walletd/plugin-kit';

/**
 * Codes about the node, not the transaction: our request, a missing method, an internal failure,
 * and Solana's own -32004 block not available, -32005 node unhealthy (behind), -32007/-32009 slot
 * skipped or missing, -32014 status not available, -32016 minimum context slot not reached.
 */
const NODE_FAILURE_CODES: ReadonlySet<number> = new Set([-32700, -32600, -32601, -32603, -32004, -32005, -32007, -32009, -32014, -32016]);

/**
 * The one place a Solana node's error becomes an API error. No answer (timeout, unreachable, HTTP
 * failure) or an answer about the node itself: 502 `node_error`. A refusal of this transaction
 * (-32002 the preflight simulation failed, -32003 a signature does not verify, -32602 bytes it
 * cannot take) is the caller's: 409 `conflict` for an expired blockhash (sign again), 422
 * `insufficient_funds` for a balance or rent shortfall, else 422 `unprocessable` with the node's
 * reason. The program's reason is text inside the -32002 message, read here and nowhere else.
 */
export function nodeRefusal(e: unknown): BaseError {
  return triageNodeError(e, {
    nodeFailureCodes: NODE_FAILURE_CODES,
    nodeErrorText: 'the node did not answer',
    verdict: (m) => {
      if (m.includes('blockhash not found') || m.includes('blockhashnotfound'))
        return new BaseError('conflict', 'the transaction expired (its blockhash is no longer valid): sign it again');
      // Before the plain shortfall: its name contains "insufficientfunds".
      if (m.includes('insufficientfundsforrent') || m.includes('insufficient funds for rent'))
        return new BaseError('insufficient_funds', 'the transaction would leave an account below its rent-exempt minimum');
      if (
        m.includes('insufficient funds') ||
        m.includes('insufficientfunds') ||
        m.includes('custom program error: 0x1') ||
        m.includes('no record of a prior credit')
      )
        return new BaseError('insufficient_funds', 'insufficient funds for the amount plus fees');
      return undefined;
    },
  });
}
