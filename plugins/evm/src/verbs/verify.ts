import type { ChainReader, UnsignedWithdrawal, VerifyContext, WithdrawalVerdict } from '@walletd/plugin-kit';
import { TRANSFER_TOPIC } from '../detect';
import { type EvmTxPayload, word } from '../quote';
import type { EvmReader } from '../reader';

/**
 * Paid only when mined, successful, and (for a token) carrying the matching Transfer log:
 * right contract, from the source, to the recipient, the exact amount; for the native asset,
 * the transaction itself from the source to the recipient with the exact value. Inclusion
 * alone is not payment: without that the withdrawal stays pending.
 */
export async function verifyEvmWithdrawal(
  unsigned: UnsignedWithdrawal,
  txHash: string,
  reader: ChainReader,
  context?: VerifyContext,
): Promise<WithdrawalVerdict> {
  const evm = reader as EvmReader;
  const receipt = await evm.call<{
    status: string;
    blockNumber: string;
    gasUsed: string;
    effectiveGasPrice: string;
    logs: { address: string; topics: string[]; data: string }[];
  } | null>('eth_getTransactionReceipt', [txHash]);
  if (!receipt) return notMined(evm, unsigned, txHash, context);
  const fee = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
  const blockNumber = BigInt(receipt.blockNumber);
  if (receipt.status !== '0x1') return { status: 'rejected', confirmations: 0, fee, blockNumber, reason: 'failed_on_chain' };
  const { intent } = unsigned;
  const [output] = intent.outputs;
  const token = intent.asset.contractAddress;
  if (token && output) {
    const from = `0x${word(unsigned.sourceAddresses[0] ?? '0x')}`;
    const to = `0x${word(output.to)}`;
    const paid = receipt.logs.some(
      (l) =>
        l.address.toLowerCase() === token.toLowerCase() &&
        l.topics.length === 3 &&
        l.topics[0] === TRANSFER_TOPIC &&
        l.topics[1]?.toLowerCase() === from &&
        l.topics[2]?.toLowerCase() === to &&
        BigInt(l.data) === output.amount,
    );
    if (!paid) return { status: 'pending', confirmations: 0, blockNumber };
  } else if (output) {
    // A native payment is the transaction itself: success alone would confirm any mined
    // transaction under this hash (the conformance kit's "mined but not the intent").
    const tx = await evm.call<{ from: string; to: string | null; value: string } | null>('eth_getTransactionByHash', [txHash]);
    const paid =
      tx !== null &&
      tx.from.toLowerCase() === (unsigned.sourceAddresses[0] ?? '').toLowerCase() &&
      tx.to?.toLowerCase() === output.to.toLowerCase() &&
      BigInt(tx.value) === output.amount;
    if (!paid) return { status: 'pending', confirmations: 0, blockNumber };
  }
  const head = BigInt(await evm.call<string>('eth_blockNumber', []));
  return { status: 'confirmed', confirmations: Number(head - blockNumber + 1n), fee, blockNumber };
}

/**
 * No receipt: in the node's pool (pending), gone for good because its nonce was used by another
 * transaction (rejected: `reorg` if it had been mined, else `mempool_dropped`), or gone but still
 * valid (missing: sending the same bytes again is safe, they can land only once).
 */
async function notMined(evm: EvmReader, unsigned: UnsignedWithdrawal, txHash: string, context?: VerifyContext): Promise<WithdrawalVerdict> {
  const known = await evm.call<unknown>('eth_getTransactionByHash', [txHash]);
  if (known) return { status: 'pending', confirmations: 0 };
  const from = unsigned.sourceAddresses[0] ?? '';
  const used = Number(BigInt(await evm.call<string>('eth_getTransactionCount', [from, 'latest'])));
  if (used > (unsigned.payload as EvmTxPayload).nonce) {
    // Mined between the two reads (or by another backend of a balanced endpoint): not gone.
    if (await evm.call<unknown>('eth_getTransactionReceipt', [txHash])) return { status: 'pending', confirmations: 0 };
    return { status: 'rejected', confirmations: 0, reason: context?.seenInBlock ? 'reorg' : 'mempool_dropped' };
  }
  return { status: 'missing', confirmations: 0 };
}
