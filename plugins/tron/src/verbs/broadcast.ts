import { BaseError, type SignedWithdrawal } from '@walletd/plugin-kit';
import { nodeMessage } from '../nodeMessage';
import { nodeRefusal } from '../nodeRefusal';
import type { TronReader } from '../reader';

export async function broadcastTronWithdrawal(signed: SignedWithdrawal, reader: TronReader): Promise<void> {
  const r = await reader.http.send<{ result?: boolean; code?: string; message?: string; txid?: string }>('/wallet/broadcasthex', {
    transaction: signed.raw,
  });
  if (r.result === true) {
    if (typeof r.txid === 'string' && r.txid.toLowerCase() !== signed.txHash.toLowerCase())
      throw new BaseError('node_error', 'the node reported another transaction id');
    return;
  }
  // Sending bytes the node already has (a retry after a crash) is not a refusal.
  if (r.code === 'DUP_TRANSACTION_ERROR') return;
  throw nodeRefusal(r.code ?? 'OTHER_ERROR', nodeMessage(r.message));
}
