import type { UnsignedWithdrawal } from '@walletd/plugin-kit';
import { scriptOf } from './addresses';
import { bitcoin } from './libs';
import { utxoNetwork } from './networks';
import { rawTransactionIn } from './rawTransaction';
import type { UtxoReader } from './reader';
import type { UtxoTxPayload } from './payload';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/**
 * The transaction spends exactly the prepared coins (the wallet's: the sender) and has exactly the
 * prepared outputs, script and value in order; and those outputs pay each of the intent's
 * recipients its exact amount (an on-chain cancel: no output but the change). Without this, any transaction mined under the hash `verify` is
 * handed would read as this withdrawal paid (the conformance kit's "mined but not the intent").
 */
export function paysIntent(unsigned: UnsignedWithdrawal, raw: string): boolean {
  const p = unsigned.payload as UtxoTxPayload;
  const { intent } = unsigned;
  const net = utxoNetwork(intent.chain, intent.network);
  if (intent.asset.contractAddress) return false;
  let tx: ReturnType<typeof bitcoin.Transaction.fromHex>;
  try {
    tx = bitcoin.Transaction.fromHex(raw);
  } catch {
    return false;
  }
  const ins = tx.ins.map((i) => `${Buffer.from(i.hash).reverse().toString('hex')}:${i.index}`).sort();
  const want = p.inputs.map((c) => `${c.txid}:${c.vout}`).sort();
  if (ins.join() !== want.join()) return false;
  const outs = tx.outs.map((o) => `${hex(o.script)}:${BigInt(o.value)}`);
  if (outs.join() !== p.outputs.map((o) => `${o.script}:${BigInt(o.value)}`).join()) return false;
  const paid = p.outputs.filter((o) => !o.change);
  // An on-chain cancel (core's attempts.ts: nothing paid, 0 to the source) pays only the wallet's change.
  if (intent.outputs.every((o) => o.amount === 0n)) return paid.length === 0;
  return (
    paid.length === intent.outputs.length &&
    intent.outputs.every((o, i) => paid[i]?.script === hex(scriptOf(net, o.to)) && BigInt(paid[i].value) === o.amount)
  );
}

/**
 * The raw transaction mined in the block at `height`: by the block's hash, which
 * `getrawtransaction` needs on a node without -txindex (as build's coins are fetched), or by id
 * where the node takes no block hash (rawTransaction.ts).
 */
export async function minedTransaction(reader: UtxoReader, txHash: string, height: bigint): Promise<string> {
  const block = (await reader.call<string>('getblockhash', [Number(height)])).result;
  return rawTransactionIn(reader, txHash, block);
}
