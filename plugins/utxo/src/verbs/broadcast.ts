import type { ChainReader, SignedWithdrawal } from '@walletd/plugin-kit';
import { nodeRefusal } from '../nodeRefusal';
import type { UtxoReader } from '../reader';

/** `sendrawtransaction`; the same bytes again are no refusal, the node's verdicts are typed by nodeRefusal.ts. */
export async function broadcastUtxoWithdrawal(signed: SignedWithdrawal, reader: ChainReader): Promise<void> {
  try {
    await (reader as UtxoReader).call<string>('sendrawtransaction', [signed.raw]);
  } catch (e) {
    const m = (e as Error).message.toLowerCase();
    // The same bytes again (a retry after a crash): the node already has them.
    if (m.includes('already in block chain') || m.includes('txn-already-known') || m.includes('txn-already-in-mempool')) return;
    throw nodeRefusal(e);
  }
}
