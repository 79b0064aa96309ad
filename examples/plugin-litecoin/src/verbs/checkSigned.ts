import { BaseError, type CheckedSignedWithdrawal, type UnsignedWithdrawal } from '@walletd/plugin-kit';
import { bitcoin } from '../libs';
import { outpointsOf, pays, payloadOf, spends } from '../payload';

/**
 * A transaction signed elsewhere is accepted only when it spends exactly the prepared coins and
 * pays exactly the prepared outputs (recipients, amounts, change, in order). Bytes that are no
 * transaction make bitcoinjs-lib throw a plain error, which the kit's `refusingUnreadableSigned`
 * makes a 422.
 */
export function checkSigned(prepared: UnsignedWithdrawal, raw: string): CheckedSignedWithdrawal {
  const p = payloadOf(prepared);
  if (!/^([0-9a-fA-F]{2})+$/.test(raw)) throw new BaseError('unprocessable', 'signedTransaction is not hex');
  const tx = bitcoin.Transaction.fromHex(raw);
  const refuse = (what: string) => {
    throw new BaseError('unprocessable', `the signed transaction does not pay the prepared withdrawal: ${what}`);
  };
  if (spends(outpointsOf(tx.ins)) !== spends(p.inputs)) refuse('it spends other coins than the prepared ones');
  if (pays(tx.outs) !== pays(p.outputs)) refuse('its outputs (recipients, amounts or change) differ');
  return { signed: { raw: tx.toHex(), txHash: tx.getId() }, payload: p, fee: prepared.fee };
}
