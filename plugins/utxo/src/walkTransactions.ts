import { hash } from 'node:crypto';
import { BaseError } from '@walletd/plugin-kit';

/**
 * Where one serialized transaction lies in a buffer, as `walkTransactions` found it. The object
 * and its `outputs` array are reused from one transaction to the next: read them in the callback.
 */
export interface TxSpans {
  bytes: Uint8Array;
  view: DataView;
  start: number;
  end: number;
  segwit: boolean;
  /** First byte after version (and the segwit marker and flag): the input count. */
  inputsStart: number;
  /** First byte after the last output (the witnesses, or the lock time). */
  outputsEnd: number;
  /** Offset of each output (8-byte value, then the script's length and bytes); `outputCount` of them are valid. */
  outputs: number[];
  /** Where each output's script starts and ends (lookups read the bytes in place, no view per output). */
  scriptStarts: number[];
  scriptEnds: number[];
  outputCount: number;
}

/**
 * Walks `count` transactions from `at` without building objects: the hot path of the bitcoin and
 * dogecoin detectors (issue 17: bitcoinjs' `Block.fromBuffer` made every transaction, input,
 * witness and output an object, ~15x the cost of reading the bytes). Only the offsets are noted;
 * the caller hashes and decodes the transactions that matter. Returns the offset after the last.
 * Throws on bytes that end inside a transaction.
 */
export function walkTransactions(bytes: Uint8Array, at: number, count: number, onTx: (tx: TxSpans) => void): number {
  const tx: TxSpans = {
    bytes,
    view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    start: 0,
    end: 0,
    segwit: false,
    inputsStart: 0,
    outputsEnd: 0,
    outputs: [],
    scriptStarts: [],
    scriptEnds: [],
    outputCount: 0,
  };
  const n = bytes.length;
  let pos = at;
  // Counts and lengths are almost always one byte: read those inline, the rest through compactSize.
  const varint = (): number => {
    if (pos >= n) throw new BaseError('encoding_invalid', 'transaction data ends early');
    const first = bytes[pos] as number;
    if (first < 0xfd) {
      pos += 1;
      return first;
    }
    const v = compactSize(bytes, pos);
    pos += compactSizeLength(first);
    return v;
  };
  const { outputs: valueAt, scriptStarts, scriptEnds } = tx;
  for (let t = 0; t < count; t++) {
    tx.start = pos;
    pos += 4;
    tx.segwit = bytes[pos] === 0 && bytes[pos + 1] === 1;
    if (tx.segwit) pos += 2;
    tx.inputsStart = pos;
    const inputs = varint();
    for (let i = 0; i < inputs; i++) {
      pos += 36;
      // Read the length first: `pos += varint()` would add to the value of `pos` from before the read.
      const script = varint();
      pos += script + 4;
    }
    const outputs = varint();
    for (let o = 0; o < outputs; o++) {
      valueAt[o] = pos;
      pos += 8;
      const script = varint();
      scriptStarts[o] = pos;
      pos += script;
      scriptEnds[o] = pos;
    }
    tx.outputCount = outputs;
    tx.outputsEnd = pos;
    if (tx.segwit) {
      for (let i = 0; i < inputs; i++) {
        const items = varint();
        for (let w = 0; w < items; w++) {
          const item = varint();
          pos += item;
        }
      }
    }
    pos += 4;
    if (pos > n) throw new BaseError('encoding_invalid', 'transaction data ends early');
    tx.end = pos;
    onTx(tx);
  }
  return pos;
}

/** The script of output `o` of the transaction in `tx` (a view, no copy). */
export function outputScript(tx: TxSpans, o: number): Uint8Array {
  return tx.bytes.subarray(tx.scriptStarts[o] as number, tx.scriptEnds[o] as number);
}

/** The value of output `o` in base units (little-endian uint64). */
export function outputValue(tx: TxSpans, o: number): bigint {
  return tx.view.getBigUint64(tx.outputs[o] as number, true);
}

/** Double SHA-256; `crypto.hash` (one-shot) costs half of two `createHash` objects per call. */
const sha256d = (data: Uint8Array): Buffer => hash('sha256', hash('sha256', data, 'buffer'), 'buffer');

/** Where a segwit transaction's txid preimage is assembled: grown as needed, reused (no garbage per transaction). */
let scratch = Buffer.allocUnsafe(4096);

/** The txid (display order): double SHA-256 of the serialization without marker, flag and witnesses. */
export function txid(tx: TxSpans): string {
  const { bytes } = tx;
  if (!tx.segwit) return sha256d(bytes.subarray(tx.start, tx.end)).reverse().toString('hex');
  const middle = tx.outputsEnd - tx.inputsStart;
  if (scratch.length < middle + 8) scratch = Buffer.allocUnsafe(2 * (middle + 8));
  scratch.set(bytes.subarray(tx.start, tx.start + 4), 0);
  scratch.set(bytes.subarray(tx.inputsStart, tx.outputsEnd), 4);
  scratch.set(bytes.subarray(tx.end - 4, tx.end), 4 + middle);
  return sha256d(scratch.subarray(0, middle + 8))
    .reverse()
    .toString('hex');
}

/** The hash (display order) of an 80-byte block header at the start of `bytes`. */
export function blockHash(bytes: Uint8Array): string {
  return sha256d(bytes.subarray(0, 80)).reverse().toString('hex');
}

/** The transaction count after the 80-byte header, and where the first transaction starts. */
export function transactionCount(bytes: Uint8Array): { count: number; at: number } {
  if (bytes.length < 81) throw new BaseError('encoding_invalid', 'a block shorter than its header');
  return { count: compactSize(bytes, 80), at: 80 + compactSizeLength(bytes[80] as number) };
}

/**
 * A Bitcoin CompactSize at `pos`. Values of 2^32 and more never occur in a valid block; they are
 * refused rather than read imprecisely.
 */
function compactSize(bytes: Uint8Array, pos: number): number {
  const first = bytes[pos] as number;
  if (first < 0xfd) return first;
  if (first === 0xfd) return (bytes[pos + 1] as number) | ((bytes[pos + 2] as number) << 8);
  if (first === 0xfe)
    return (
      ((bytes[pos + 1] as number) | ((bytes[pos + 2] as number) << 8) | ((bytes[pos + 3] as number) << 16)) +
      (bytes[pos + 4] as number) * 0x1000000
    );
  throw new BaseError('encoding_invalid', 'a count of 2^32 or more in transaction data');
}

const compactSizeLength = (first: number): number => (first < 0xfd ? 1 : first === 0xfd ? 3 : first === 0xfe ? 5 : 9);
