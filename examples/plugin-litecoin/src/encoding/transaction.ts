import { ByteReader, u32le, u64le, varBytes, varint } from './bytes';
import { hash256, reversedHex } from './hash';

export interface TxInput {
  /** The spent transaction's id, in the node's (reversed) hex form. */
  txid: string;
  vout: number;
  scriptSig: Uint8Array;
  sequence: number;
  witness: Uint8Array[];
}

export interface TxOutput {
  value: bigint;
  script: Uint8Array;
}

export interface Transaction {
  version: number;
  inputs: TxInput[];
  outputs: TxOutput[];
  locktime: number;
}

/** Litecoin's flag bit for a MimbleWimble extension-block payload (MWEB), after the witnesses. */
const MWEB_FLAG = 0x08;

/**
 * One transaction from the reader's position (BIP-144 segwit serialization or legacy). A
 * transaction carrying MWEB data is refused: its transparent outputs are read only when it has none
 * (the pegin and HogEx transactions of MWEB blocks carry an empty marker byte).
 */
export function readTransaction(r: ByteReader): Transaction {
  const version = r.u32();
  let flags = 0;
  let count = r.varint();
  if (count === 0) {
    flags = r.u8();
    count = r.varint();
  }
  const inputs: TxInput[] = [];
  for (let i = 0; i < count; i++) {
    inputs.push({ txid: reversedHex(r.take(32)), vout: r.u32(), scriptSig: r.varBytes(), sequence: r.u32(), witness: [] });
  }
  const outputs: TxOutput[] = [];
  const outCount = r.varint();
  for (let i = 0; i < outCount; i++) outputs.push({ value: r.u64(), script: r.varBytes() });
  if (flags & 0x01) {
    for (const input of inputs) {
      const items = r.varint();
      for (let i = 0; i < items; i++) input.witness.push(r.varBytes());
    }
  }
  if (flags & MWEB_FLAG && r.u8() !== 0) throw new RangeError('a transaction with MWEB data (not read by this plugin)');
  return { version, inputs, outputs, locktime: r.u32() };
}

export const parseTransaction = (bytes: Uint8Array): Transaction => {
  const r = new ByteReader(bytes);
  const tx = readTransaction(r);
  if (r.offset !== bytes.length) throw new RangeError(`${bytes.length - r.offset} bytes after the transaction`);
  return tx;
};

export function serializeTransaction(tx: Transaction, withWitness: boolean): Buffer {
  const segwit = withWitness && tx.inputs.some((i) => i.witness.length > 0);
  const parts: Buffer[] = [u32le(tx.version)];
  if (segwit) parts.push(Buffer.from([0, 1]));
  parts.push(varint(tx.inputs.length));
  for (const i of tx.inputs) {
    parts.push(Buffer.from(i.txid, 'hex').reverse(), u32le(i.vout), varBytes(i.scriptSig), u32le(i.sequence));
  }
  parts.push(varint(tx.outputs.length));
  for (const o of tx.outputs) parts.push(u64le(o.value), varBytes(o.script));
  if (segwit) for (const i of tx.inputs) parts.push(varint(i.witness.length), ...i.witness.map(varBytes));
  parts.push(u32le(tx.locktime));
  return Buffer.concat(parts);
}

/** The id the node and explorers use: the hash of the serialization without witnesses. */
export const txidOf = (tx: Transaction): string => reversedHex(hash256(serializeTransaction(tx, false)));
