import { BaseError, triageNodeError } from '@walletd/plugin-kit';

// Litecoin Core's RPC codes that are a verdict on the transaction (src/rpc/protocol.h).
const VERDICTS = new Set([-25 /* verify error */, -26 /* rejected */, -22 /* undecodable */]);

/**
 * The one place the node's error at `sendrawtransaction` becomes an API error, through the kit's
 * triage. A node that judged the transaction answers the caller (409 when preparing again fixes
 * it: coins spent elsewhere, a fee below the pool's minimum; else 422 with the node's reason); a
 * node that did not answer, or answered about itself, is 502 `node_error`.
 */
export function nodeRefusal(e: unknown): BaseError {
  return triageNodeError(e, {
    aboutTheNode: (_m, answer) => !VERDICTS.has(answer.node.rpcCode ?? 0),
    nodeErrorText: 'the node did not take the transaction now',
    verdict: (m, { message }) => {
      if (m.includes('missingorspent') || m.includes('missing inputs') || m.includes('mempool-conflict'))
        return new BaseError('conflict', 'its coins were spent by another transaction');
      if (m.includes('min relay fee not met') || m.includes('mempool min fee not met') || m.includes('insufficient fee'))
        return new BaseError('conflict', `the node refused the fee: ${message.slice(0, 160)}`);
      return undefined;
    },
  });
}
