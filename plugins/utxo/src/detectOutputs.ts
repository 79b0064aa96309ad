import {
  type DetectContext,
  type DetectFn,
  type DetectMempoolFn,
  type DetectResult,
  type DetectedTransfer,
  fromBaseUnits,
} from '@walletd/core';
import { bitcoin } from './libs';
import { addressOfScript } from './addresses';
import { stripAuxPow } from './auxpow';
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

/** Mempool transactions for `detectMempool`: each as a 4-byte big-endian length and its bytes. */
export function frameTransactions(txs: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(txs.reduce((n, t) => n + 4 + t.length, 0));
  const view = new DataView(out.buffer);
  let at = 0;
  for (const t of txs) {
    view.setUint32(at, t.length);
    out.set(t, at + 4);
    at += 4 + t.length;
  }
  return out;
}

type Tx = ReturnType<typeof bitcoin.Transaction.fromBuffer>;

/**
 * The per-transaction matcher for one detect call (network and lookup resolved once, not per
 * transaction). Every output paying a watched script is one transfer (`eventIndex` and
 * `logIndex` = vout, stable when the transaction is mined again); the transaction's outputs are
 * carried as `outputs` (spec 2.6). Only transactions that match are hashed and encoded.
 */
function outputMatcher(ctx: DetectContext): (tx: Tx, transfers: DetectedTransfer[]) => void {
  const net = utxoNetwork(ctx.chain, ctx.network);
  const { watched } = ctx;
  const isWatched = watched.hasBytes ? watched.hasBytes.bind(watched) : (script: Uint8Array) => watched.has(hex(script));
  return (tx, transfers) => {
    let txid: string | null = null;
    let addresses: (string | null)[] | null = null;
    let outputs: { address: string; amount: string }[] | null = null;
    tx.outs.forEach((out, vout) => {
      if (!isWatched(out.script)) return;
      const key = hex(out.script);
      txid ??= tx.getId();
      addresses ??= tx.outs.map((o) => addressOfScript(net, o.script));
      const shown = addresses;
      outputs ??= tx.outs.map((o, i) => ({
        address: shown[i] ?? `script:${hex(o.script)}`,
        amount: fromBaseUnits(BigInt(o.value), ctx.native.decimals),
      }));
      transfers.push({
        txHash: txid,
        eventIndex: vout,
        logIndex: vout,
        to: addresses[vout] ?? key,
        toKey: key,
        assetKey: ctx.native.key,
        amount: BigInt(out.value),
        eventType: 'utxo_output',
        extra: { outputs },
      });
    });
  };
}

/** Pure, in a worker: the outputs of a height-framed block that pay watched scripts. */
export const detect: DetectFn = (raw: Uint8Array, ctx: DetectContext): DetectResult => {
  const height = new DataView(raw.buffer, raw.byteOffset, raw.byteLength).getBigUint64(0);
  // Only dogecoin merge-mines: on bitcoin, version bit 8 is an ordinary (BIP-9) signalling bit.
  const bytes = ctx.chain === 'dogecoin' ? stripAuxPow(raw.subarray(8)) : raw.subarray(8);
  const block = bitcoin.Block.fromBuffer(bytes);
  const match = outputMatcher(ctx);
  const transfers: DetectedTransfer[] = [];
  for (const tx of block.transactions ?? []) match(tx, transfers);
  return { block: { number: height, hash: block.getId(), parentHash: reversedHex(block.prevHash as Uint8Array) }, transfers };
};

/** Pure, in a worker: the same for framed mempool transactions. */
export const detectMempool: DetectMempoolFn = (raw: Uint8Array, ctx: DetectContext): DetectedTransfer[] => {
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const match = outputMatcher(ctx);
  const transfers: DetectedTransfer[] = [];
  for (let at = 0; at < raw.length; ) {
    const length = view.getUint32(at);
    match(bitcoin.Transaction.fromBuffer(raw.subarray(at + 4, at + 4 + length)), transfers);
    at += 4 + length;
  }
  return transfers;
};
