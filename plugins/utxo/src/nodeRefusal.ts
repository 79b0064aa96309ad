import { BaseError, triageNodeError } from '@walletd/plugin-kit';

/** Bitcoin Core's RPC codes (src/rpc/protocol.h) that judge the transaction. */
const RPC_VERIFY_ERROR = -25;
const RPC_VERIFY_REJECTED = -26;
const RPC_DESERIALIZATION_ERROR = -22;

/**
 * The one place a bitcoin-family node's error at `sendrawtransaction` becomes an API error. No
 * answer (timeout, unreachable, HTTP failure) or any code that is not a verdict on the
 * transaction (-28 warming up, -32603 internal, a missing method): 502 `node_error`. A verdict
 * (-25 verify error, -26 rejected by policy or consensus, -22 undecodable) is the caller's: 409
 * `conflict` when preparing again fixes it (its coins spent elsewhere, a fee below the pool's
 * minimum), else 422 `unprocessable` with the node's reason (a script or signature that does
 * not verify, dust, a non-standard output). The reason is text (`mandatory-script-verify-flag-
 * failed`, `min relay fee not met`), read here and nowhere else. Repeats of the same bytes
 * (already known, already in the chain) are the caller's concern before this is asked.
 */
export function nodeRefusal(e: unknown): BaseError {
  return triageNodeError(e, {
    aboutTheNode: (_m, { node: { rpcCode } }) =>
      rpcCode !== RPC_VERIFY_ERROR && rpcCode !== RPC_VERIFY_REJECTED && rpcCode !== RPC_DESERIALIZATION_ERROR,
    nodeErrorText: 'the node did not take the transaction now',
    verdict: (m, { message }) => {
      if (
        m.includes('missingorspent') ||
        m.includes('missing inputs') ||
        m.includes('mempool-conflict') ||
        m.includes('txn-mempool-conflict')
      )
        return new BaseError('conflict', 'its coins were spent by another transaction');
      if (m.includes('min relay fee not met') || m.includes('mempool min fee not met') || m.includes('insufficient fee'))
        return new BaseError('conflict', `the node refused the fee (too low for its mempool): ${message.slice(0, 160)}`);
      return undefined;
    },
  });
}
