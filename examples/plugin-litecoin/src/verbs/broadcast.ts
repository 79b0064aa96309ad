import type { SignedWithdrawal } from '@walletd/plugin-kit';
import { nodeRefusal } from '../nodeRefusal';
import type { LitecoinReader } from '../reader';

/**
 * Publishes the signed bytes. The same bytes again (a retry after a crash) are a no-op; the node's
 * refusals are typed in nodeRefusal.ts.
 */
export async function broadcast(signed: SignedWithdrawal, reader: LitecoinReader): Promise<void> {
  try {
    await reader.call<string>('sendrawtransaction', [signed.raw]);
  } catch (e) {
    const m = (e as Error).message.toLowerCase();
    if (m.includes('already in block chain') || m.includes('txn-already-known') || m.includes('txn-already-in-mempool')) return;
    throw nodeRefusal(e);
  }
}
