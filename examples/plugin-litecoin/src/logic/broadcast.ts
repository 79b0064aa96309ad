import { BaseError, NodeCallError, type SignedWithdrawal, nodeAnswerOf } from '@walletd/plugin-kit';
import type { LitecoinReader } from '../network/reader';

// Litecoin Core's RPC codes that are a verdict on the transaction (src/rpc/protocol.h).
const VERDICTS = new Set([-25 /* verify error */, -26 /* rejected */, -22 /* undecodable */]);

/**
 * Publishes the signed bytes. The same bytes again (a retry after a crash) are a no-op. A node that
 * judged the transaction answers the caller (409 when preparing again fixes it: coins spent
 * elsewhere, a fee below the pool's minimum; else 422 with the node's reason); a node that did
 * not answer, or answered about itself, is 502 `node_error`.
 */
export async function broadcast(signed: SignedWithdrawal, reader: LitecoinReader): Promise<void> {
  try {
    await reader.call<string>('sendrawtransaction', [signed.raw]);
  } catch (e) {
    const m = (e as Error).message.toLowerCase();
    if (m.includes('already in block chain') || m.includes('txn-already-known') || m.includes('txn-already-in-mempool')) return;
    const answer = nodeAnswerOf(e);
    if (!(answer instanceof NodeCallError)) throw answer;
    if (answer.node.kind !== 'rpc' || !VERDICTS.has(answer.node.rpcCode ?? 0))
      throw new BaseError('node_error', `the node did not take the transaction now: ${answer.message.slice(0, 200)}`, { cause: e });
    if (m.includes('missingorspent') || m.includes('missing inputs') || m.includes('mempool-conflict'))
      throw new BaseError('conflict', 'its coins were spent by another transaction');
    if (m.includes('min relay fee not met') || m.includes('mempool min fee not met') || m.includes('insufficient fee'))
      throw new BaseError('conflict', `the node refused the fee: ${answer.message.slice(0, 160)}`);
    throw new BaseError('unprocessable', `the node refused the transaction: ${answer.message.slice(0, 200)}`, { cause: e });
  }
}
