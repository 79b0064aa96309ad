import type { UnsignedWithdrawal, VerifyContext, WithdrawalVerdict } from '@walletd/plugin-kit';
import { tronMatchKey } from './addresses';
import { TRANSFER_TOPIC } from './detectTransfers';
import { payloadOf } from './payload';
import type { TronReader } from './tronReader';

/**
 * Paid only when included and successful: a TRX transfer whose `contractRet` is SUCCESS, a TRC-20
 * call whose receipt result is SUCCESS and that emitted the matching Transfer log (the
 * intent's contract, from the source, to the recipient, the exact amount; without it the
 * withdrawal stays pending). Reverted, out of energy or any other failure: `failed_on_chain`,
 * with the fee it burned. Not in a block and not in the node's pool: `expired` once the
 * solidified block is past its expiration (a final view), else `missing` (sent again). The
 * fee is TransactionInfo.fee: every sun burned (energy, bandwidth, account creation, memo).
 */
export async function verifyTronWithdrawal(
  unsigned: UnsignedWithdrawal,
  txHash: string,
  reader: TronReader,
  context?: VerifyContext,
): Promise<WithdrawalVerdict> {
  const info = await reader.http.post<{
    id?: string;
    blockNumber?: unknown;
    fee?: unknown;
    result?: string;
    receipt?: { result?: string; energy_fee?: unknown; net_fee?: unknown };
    log?: { address?: string; topics?: string[]; data?: string }[];
  }>('/wallet/gettransactioninfobyid', { value: txHash });
  if (info.id !== undefined && info.blockNumber !== undefined) {
    const blockNumber = BigInt(info.blockNumber as number | string);
    const fee =
      info.fee !== undefined
        ? BigInt(info.fee as number | string)
        : BigInt((info.receipt?.energy_fee as number) ?? 0) + BigInt((info.receipt?.net_fee as number) ?? 0);
    const p = payloadOf(unsigned);
    const failed = { status: 'rejected' as const, confirmations: 0, fee, blockNumber, reason: 'failed_on_chain' as const };
    if (info.result === 'FAILED') return failed;
    if (p.kind === 'trc20') {
      if (info.receipt?.result !== 'SUCCESS') return failed;
      const contract = tronMatchKey(p.contract as string);
      const from = tronMatchKey(p.owner).padStart(64, '0');
      const to = tronMatchKey(p.to).padStart(64, '0');
      const paid = (info.log ?? []).some(
        (l) =>
          l.address?.toLowerCase() === contract &&
          l.topics?.length === 3 &&
          l.topics[0]?.toLowerCase() === TRANSFER_TOPIC &&
          l.topics[1]?.toLowerCase() === from &&
          l.topics[2]?.toLowerCase() === to &&
          typeof l.data === 'string' &&
          /^[0-9a-fA-F]{64}$/.test(l.data) &&
          BigInt(`0x${l.data}`) === BigInt(p.amount),
      );
      if (!paid) return { status: 'pending', confirmations: 0, blockNumber };
    } else {
      const tx = await reader.http.post<{ txID?: string; ret?: { contractRet?: string }[] }>('/wallet/gettransactionbyid', {
        value: txHash,
      });
      if (tx.txID === undefined) return { status: 'pending', confirmations: 0, blockNumber };
      if (tx.ret?.[0]?.contractRet !== 'SUCCESS') return failed;
    }
    const head = await reader.head();
    return { status: 'confirmed', confirmations: Number(head - blockNumber + 1n), fee, blockNumber };
  }
  // Not in a block: in the node's pool, or gone (expired for good, or still able to land).
  const pending = await reader.http
    .post<{ txID?: string }>('/wallet/gettransactionfrompending', { value: txHash })
    .catch(() => ({}) as { txID?: string });
  if (pending.txID !== undefined) return { status: 'pending', confirmations: 0 };
  const expiration = payloadOf(unsigned).expiration;
  const solid = await reader.solidBlock();
  if (solid.timestamp > expiration) return { status: 'rejected', confirmations: 0, reason: context?.seenInBlock ? 'reorg' : 'expired' };
  return { status: 'missing', confirmations: 0 };
}
