import type { UnsignedWithdrawal, VerifyContext, WithdrawalVerdict } from '@walletd/plugin-kit';
import { bitcoin } from '../libs';
import type { LitecoinReader } from '../reader';
import { outpointsOf, pays, payloadOf, spends } from '../payload';

/**
 * The node's view of `txHash` (it runs with `-txindex=1`) judged against the prepared withdrawal:
 * `confirmed` only when the mined transaction spends the prepared coins and pays exactly the
 * prepared outputs (anything else under that id is `pending`, never this withdrawal paid), with the
 * exact fee (inputs − outputs). In the pool: `pending`. Unknown: `missing` while its coins are
 * unspent (the service sends the same bytes again), else rejected, as a reorg if it had been mined.
 */
export async function verify(
  unsigned: UnsignedWithdrawal,
  txHash: string,
  reader: LitecoinReader,
  context?: VerifyContext,
): Promise<WithdrawalVerdict> {
  const p = payloadOf(unsigned);
  let found: { hex: string; confirmations?: number } | undefined;
  try {
    found = await reader.call<{ hex: string; confirmations?: number }>('getrawtransaction', [txHash, true]);
  } catch (e) {
    // -5: no such transaction in the pool or the chain; anything else is the node's trouble.
    if ((e as { node?: { rpcCode?: number } }).node?.rpcCode !== -5) throw e;
  }
  if (!found) {
    for (const c of p.inputs) {
      if (!(await reader.call<unknown>('gettxout', [c.txid, c.vout, true])))
        return { status: 'rejected', confirmations: 0, reason: context?.seenInBlock ? 'reorg' : 'mempool_dropped' };
    }
    return { status: 'missing', confirmations: 0 };
  }
  const tx = bitcoin.Transaction.fromHex(found.hex);
  const confirmations = found.confirmations ?? 0;
  if (confirmations === 0 || spends(outpointsOf(tx.ins)) !== spends(p.inputs) || pays(tx.outs) !== pays(p.outputs))
    return { status: 'pending', confirmations: 0 };
  const fee = p.inputs.reduce((s, i) => s + BigInt(i.value), 0n) - tx.outs.reduce((s, o) => s + o.value, 0n);
  const head = await reader.head();
  return { status: 'confirmed', confirmations, fee, blockNumber: head - BigInt(confirmations) + 1n };
}
