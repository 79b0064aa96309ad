import {
  BaseError,
  type DetectContext,
  type DetectFn,
  type DetectMempoolFn,
  type DetectResult,
  type DetectedTransfer,
  fromBaseUnits,
} from '@walletd/plugin-kit';
import { addressOfScript } from './addresses';
import { stripAuxPow } from './auxpow';
import { utxoNetwork } from './networks';
import { type TxSpans, blockHash, outputScript, outputValue, transactionCount, txid, walkTransactions } from './walkTransactions';

// A Buffer view over the same memory (no copy) for its hex encoder.
const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
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

/**
 * The per-transaction matcher for one detect call (network and lookup resolved once, not per
 * transaction). Every output paying a watched script is one transfer (`eventIndex` and
 * `logIndex` = vout, stable when the transaction is mined again); the transaction's outputs are
 * carried as `outputs` (spec 2.6). Only transactions that match are hashed and encoded.
 */
function outputMatcher(ctx: DetectContext): (tx: TxSpans, transfers: DetectedTransfer[]) => void {
  const net = utxoNetwork(ctx.chain, ctx.network);
  const { watched } = ctx;
  const { decimals, key: assetKey } = ctx.native;
  // A direct method call on the hot path (once per output): a bound function or a closure around
  // it measured slower in V8 than the monomorphic call.
  const byBytes = watched.hasBytes ? (watched as typeof watched & Required<Pick<typeof watched, 'hasBytes'>>) : null;
  const byHex = (bytes: Uint8Array, start: number, end: number) => watched.has(hex(bytes.subarray(start, end)));
  /** Every output of a matched transaction, as spec 2.6 carries them (one plain loop, no intermediate arrays). */
  const outputsOf = (tx: TxSpans) => {
    const outputs: { address: string; amount: string }[] = new Array(tx.outputCount);
    for (let o = 0; o < tx.outputCount; o++) {
      const script = outputScript(tx, o);
      outputs[o] = {
        address: addressOfScript(net, script) ?? `script:${hex(script)}`,
        amount: fromBaseUnits(outputValue(tx, o), decimals),
      };
    }
    return outputs;
  };
  return (tx, transfers) => {
    let id: string | null = null;
    let outputs: { address: string; amount: string }[] | null = null;
    const { bytes, scriptStarts, scriptEnds } = tx;
    for (let vout = 0; vout < tx.outputCount; vout++) {
      const start = scriptStarts[vout] as number;
      const end = scriptEnds[vout] as number;
      if (!(byBytes ? byBytes.hasBytes(bytes, start, end) : byHex(bytes, start, end))) continue;
      // A 0-value output to a watched script moved nothing: never a deposit (address poisoning).
      const amount = outputValue(tx, vout);
      if (amount === 0n) continue;
      const key = hex(bytes.subarray(start, end));
      id ??= txid(tx);
      outputs ??= outputsOf(tx);
      const shown = (outputs[vout] as { address: string }).address;
      transfers.push({
        txHash: id,
        eventIndex: vout,
        logIndex: vout,
        to: shown.startsWith('script:') ? key : shown,
        toKey: key,
        assetKey,
        amount,
        eventType: 'utxo_output',
        extra: { outputs },
      });
    }
  };
}

/** Pure, in a worker: the outputs of a height-framed block that pay watched scripts. */
export const detect: DetectFn = (raw: Uint8Array, ctx: DetectContext): DetectResult => {
  const height = new DataView(raw.buffer, raw.byteOffset, raw.byteLength).getBigUint64(0);
  // Only dogecoin merge-mines: on bitcoin, version bit 8 is an ordinary (BIP-9) signalling bit.
  const bytes = ctx.chain === 'dogecoin' ? stripAuxPow(raw.subarray(8)) : raw.subarray(8);
  const { count, at } = transactionCount(bytes);
  const match = outputMatcher(ctx);
  const transfers: DetectedTransfer[] = [];
  const end = walkTransactions(bytes, at, count, (tx) => match(tx, transfers));
  if (end !== bytes.length)
    throw new BaseError('encoding_invalid', `block has ${bytes.length - end} bytes after its ${count} transactions`);
  // The header's time (bytes 68-72, little-endian): the tip's age and the time to deposit.detected.
  const timestamp = new DataView(bytes.buffer, bytes.byteOffset + 68, 4).getUint32(0, true);
  return { block: { number: height, hash: blockHash(bytes), parentHash: reversedHex(bytes.subarray(4, 36)), timestamp }, transfers };
};

/** Pure, in a worker: the same for framed mempool transactions. */
export const detectMempool: DetectMempoolFn = (raw: Uint8Array, ctx: DetectContext): DetectedTransfer[] => {
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const match = outputMatcher(ctx);
  const transfers: DetectedTransfer[] = [];
  for (let at = 0; at < raw.length; ) {
    const length = view.getUint32(at);
    const one = raw.subarray(at + 4, at + 4 + length);
    if (walkTransactions(one, 0, 1, (tx) => match(tx, transfers)) !== length)
      throw new BaseError('encoding_invalid', 'a mempool transaction of the wrong length');
    at += 4 + length;
  }
  return transfers;
};
