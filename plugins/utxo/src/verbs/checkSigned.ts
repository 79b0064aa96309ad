import { BaseError, type CheckedSignedWithdrawal, type UnsignedWithdrawal } from '@walletd/plugin-kit';
import { bitcoin } from '../libs';
import type { UtxoTxPayload } from '../payload';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** A transaction signed elsewhere pays the intent only if it spends the prepared coins into the prepared outputs exactly. */
export function checkSignedUtxoWithdrawal(unsigned: UnsignedWithdrawal, raw: string): CheckedSignedWithdrawal {
  const p = unsigned.payload as UtxoTxPayload;
  let tx: ReturnType<typeof bitcoin.Transaction.fromHex>;
  try {
    tx = bitcoin.Transaction.fromHex(raw);
  } catch (e) {
    throw new BaseError(
      'unprocessable',
      `signedTransaction is not a serialized bitcoin-family transaction: ${(e as Error).message.slice(0, 160)}`,
    );
  }
  const refuse = (what: string) => {
    throw new BaseError('unprocessable', `the signed transaction does not pay the prepared withdrawal: ${what}`);
  };
  const ins = tx.ins.map((i) => `${Buffer.from(i.hash).reverse().toString('hex')}:${i.index}`).sort();
  const want = p.inputs.map((c) => `${c.txid}:${c.vout}`).sort();
  if (ins.join() !== want.join()) refuse('it spends other coins than the prepared ones');
  const outs = tx.outs.map((o) => `${hex(o.script)}:${o.value}`);
  if (outs.join() !== p.outputs.map((o) => `${o.script}:${o.value}`).join()) refuse('its outputs (recipients, amounts or change) differ');
  return { signed: { raw: tx.toHex(), txHash: tx.getId() }, payload: p, fee: unsigned.fee };
}
