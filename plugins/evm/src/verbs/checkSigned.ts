import { BaseError, type CheckedSignedWithdrawal, type UnsignedWithdrawal } from '@walletd/plugin-kit';
import type { Transaction } from 'ethers';
import { ethers } from '../sdk';
import type { EvmTxPayload } from '../quote';

/** A library's message about the caller's bytes, short enough for an error body. */
const reason = (e: unknown) =>
  (e instanceof Error ? ((e as { shortMessage?: string }).shortMessage ?? e.message) : String(e)).slice(0, 160);

/**
 * A transaction signed elsewhere pays the intent only if it is the prepared call exactly:
 * chain id, recipient (or token contract), value and calldata, signed by the source address.
 * The nonce must be the one the freshly built `unsigned` carries (the next one after the node's
 * and the in-flight withdrawals'): an old, already mined transaction or a nonce gap is refused.
 * Fees are the signer's choice, but the fee cap may not exceed twice the prepared one.
 */
export function checkSignedEvmWithdrawal(prepared: UnsignedWithdrawal, raw: string, fresh?: UnsignedWithdrawal): CheckedSignedWithdrawal {
  // Against the fresh build: its nonce is the next free one, its fee the current estimate.
  const unsigned = fresh ?? prepared;
  const p = unsigned.payload as EvmTxPayload;
  let tx: Transaction;
  try {
    tx = ethers().Transaction.from(raw);
  } catch (e) {
    throw new BaseError('unprocessable', `signedTransaction is not a serialized, signed EVM transaction: ${reason(e)}`);
  }
  const refuse = (what: string) => {
    throw new BaseError('unprocessable', `the signed transaction does not pay the prepared withdrawal: ${what}`);
  };
  if (!tx.signature) refuse('it is not signed');
  // The signer is recovered here: a signature no key can make (r or s zero or past the curve's
  // order) throws in the curve library.
  let signer: string | null;
  try {
    signer = tx.from;
  } catch (e) {
    throw new BaseError('unprocessable', `the signed transaction's signature is invalid, no key can make it (${reason(e)})`);
  }
  if (!signer) refuse('it is not signed');
  if (tx.chainId !== BigInt(p.chainId)) refuse(`chain id ${tx.chainId} instead of ${p.chainId}`);
  if ((tx.to ?? '').toLowerCase() !== p.to.toLowerCase()) refuse(`it is sent to ${tx.to} instead of ${p.to}`);
  if (tx.value !== BigInt(p.value)) refuse(`it moves ${tx.value} wei of value instead of ${p.value}`);
  if (tx.data.toLowerCase() !== p.data.toLowerCase()) refuse('its call data (token recipient or amount) differs');
  if (tx.nonce !== p.nonce) refuse(`its nonce is ${tx.nonce}; the next free nonce of the source is ${p.nonce}`);
  if ((signer ?? '').toLowerCase() !== (unsigned.sourceAddresses[0] ?? '').toLowerCase())
    refuse(`it is signed by ${signer}, not the source ${unsigned.sourceAddresses[0]}`);
  const maxFeePerGas = tx.maxFeePerGas ?? tx.gasPrice ?? 0n;
  const fee = tx.gasLimit * maxFeePerGas;
  if (fee > unsigned.fee * 2n) refuse(`its fee cap ${fee} wei is more than twice the prepared ${unsigned.fee}`);
  const payload: EvmTxPayload = {
    ...p,
    nonce: tx.nonce,
    gasLimit: tx.gasLimit.toString(),
    maxFeePerGas: maxFeePerGas.toString(),
    maxPriorityFeePerGas: (tx.maxPriorityFeePerGas ?? maxFeePerGas).toString(),
  };
  return { signed: { raw: tx.serialized, txHash: tx.hash as string }, payload, fee };
}
