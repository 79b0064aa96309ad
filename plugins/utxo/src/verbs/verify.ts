import type { ChainReader, UnsignedWithdrawal, VerifyContext, WithdrawalVerdict } from '@walletd/plugin-kit';
import type { UtxoTxPayload } from '../payload';
import { minedTransaction, paysIntent } from '../paysIntent';
import type { UtxoReader } from '../reader';

/**
 * Its coins unspent (mempool included): `missing` (sent again). In the mempool: pending. In a
 * block and exactly the prepared transaction paying the intent (paysIntent.ts; otherwise
 * pending): confirmations from `gettxout` on one of its outputs (works without -txindex); the
 * fee is exact (inputs − outputs). Otherwise rejected: `reorg` if it had been mined, else
 * `mempool_dropped` (replaced or double-spent). The coins are read first: a broadcast landing
 * between the reads then shows in the mempool or a block read after it, never as coins spent
 * by "another" transaction (a payout in flight was rejected that way while its API call sent it).
 */
export async function verifyUtxoWithdrawal(
  unsigned: UnsignedWithdrawal,
  txHash: string,
  reader: ChainReader,
  context?: VerifyContext,
): Promise<WithdrawalVerdict> {
  const utxo = reader as UtxoReader;
  const p = unsigned.payload as UtxoTxPayload;
  let unspent = true;
  for (const c of p.inputs) {
    if (!(await utxo.call<unknown>('gettxout', [c.txid, c.vout, true])).result) unspent = false;
  }
  if (unspent) return { status: 'missing', confirmations: 0 };
  const mempool = (await utxo.call<string[]>('getrawmempool', [])).result;
  if (mempool.includes(txHash)) return { status: 'pending', confirmations: 0 };
  for (let n = 0; n < p.outputs.length; n++) {
    const out = (await utxo.call<{ confirmations: number; bestblock: string } | null>('gettxout', [txHash, n, false])).result;
    if (out && out.confirmations > 0) {
      const height = BigInt((await utxo.call<number>('getblockcount', [])).result);
      const blockNumber = height - BigInt(out.confirmations) + 1n;
      if (!paysIntent(unsigned, await minedTransaction(utxo, txHash, blockNumber)))
        return { status: 'pending', confirmations: 0, blockNumber };
      return { status: 'confirmed', confirmations: out.confirmations, fee: unsigned.fee, blockNumber };
    }
  }
  // Its coins are spent and its own outputs are not in the UTXO set: by it (outputs already spent
  // too, e.g. the change re-used) or by another transaction. Ask for it directly when possible.
  try {
    const tx = (await utxo.call<{ confirmations?: number; hex?: string }>('getrawtransaction', [txHash, true])).result;
    if ((tx.confirmations ?? 0) > 0 && !paysIntent(unsigned, tx.hex ?? '')) return { status: 'pending', confirmations: 0 };
    if ((tx.confirmations ?? 0) > 0) {
      const height = BigInt((await utxo.call<number>('getblockcount', [])).result);
      return {
        status: 'confirmed',
        confirmations: tx.confirmations ?? 0,
        fee: unsigned.fee,
        blockNumber: height - BigInt(tx.confirmations ?? 0) + 1n,
      };
    }
  } catch {
    // Not known: another transaction spent its coins.
  }
  return { status: 'rejected', confirmations: 0, reason: context?.seenInBlock ? 'reorg' : 'mempool_dropped' };
}
