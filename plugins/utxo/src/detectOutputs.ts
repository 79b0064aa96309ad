import { type DetectContext, type DetectFn, type DetectResult, type DetectedTransfer, fromBaseUnits } from '@walletd/core';
import { bitcoin } from './libs';
import { addressOfScript } from './addresses';
import { utxoNetwork } from './networks';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const reversedHex = (b: Uint8Array) => Buffer.from(b).reverse().toString('hex');

/**
 * The raw form the reader hands over: 8 bytes of big-endian height, then the serialized block
 * exactly as `getblock <hash> 0` returns it (the block itself does not carry its height).
 */
export function frameBlock(height: bigint, block: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + block.length);
  new DataView(out.buffer).setBigUint64(0, height);
  out.set(block, 8);
  return out;
}

/**
 * Pure, in a worker: every output paying a watched script is one transfer (`eventIndex` and
 * `logIndex` = vout, stable when the transaction is mined again). The transaction's outputs are
 * carried as `outputs` (spec 2.6); `inputs` need the previous transactions and are left to the
 * reader's mempool path. Only matched outputs are encoded as addresses.
 */
export const detect: DetectFn = (raw: Uint8Array, ctx: DetectContext): DetectResult => {
  const net = utxoNetwork(ctx.chain, ctx.network);
  const height = new DataView(raw.buffer, raw.byteOffset, raw.byteLength).getBigUint64(0);
  const block = bitcoin.Block.fromBuffer(raw.subarray(8));
  const transfers: DetectedTransfer[] = [];
  for (const tx of block.transactions ?? []) {
    let txid: string | null = null;
    let outputs: { address: string; amount: string }[] | null = null;
    tx.outs.forEach((out, vout) => {
      const key = hex(out.script);
      if (!ctx.watched.has(key)) return;
      txid ??= tx.getId();
      outputs ??= tx.outs.map((o) => ({
        address: addressOfScript(net, o.script) ?? `script:${hex(o.script)}`,
        amount: fromBaseUnits(BigInt(o.value), ctx.native.decimals),
      }));
      transfers.push({
        txHash: txid,
        eventIndex: vout,
        logIndex: vout,
        to: addressOfScript(net, out.script) ?? key,
        toKey: key,
        assetKey: ctx.native.key,
        amount: BigInt(out.value),
        eventType: 'utxo_output',
        extra: { outputs },
      });
    });
  }
  return { block: { number: height, hash: block.getId(), parentHash: reversedHex(block.prevHash as Uint8Array) }, transfers };
};
