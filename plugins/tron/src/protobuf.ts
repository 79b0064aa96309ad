import { BaseError } from '@walletd/plugin-kit';
/**
 * The few protobuf messages a Tron withdrawal needs (core/Tron.proto, core/contract/*.proto),
 * encoded and decoded by hand so that int64 amounts stay bigint end to end (google-protobuf's JS
 * build carries int64 as a double). Fields are written in field-number order with minimal varints,
 * as java-tron and tronweb write them, so a transaction built here and one built by a node from the
 * same values are the same bytes (a test checks it against tronweb's own encoder).
 *
 * Transaction.raw: 1 ref_block_bytes, 4 ref_block_hash, 8 expiration, 10 data (memo), 11 contract,
 * 14 timestamp, 18 fee_limit. Contract: 1 type, 2 parameter (google.protobuf.Any: 1 type_url,
 * 2 value). TransferContract: 1 owner_address, 2 to_address, 3 amount. TriggerSmartContract:
 * 1 owner_address, 2 contract_address, 3 call_value, 4 data, 5 call_token_value, 6 token_id.
 * Transaction: 1 raw_data, 2 signature (repeated), 5 ret (repeated).
 */

export const TRANSFER_CONTRACT = 1;
export const TRIGGER_SMART_CONTRACT = 31;
const TYPE_URL_PREFIX = 'type.googleapis.com/protocol.';
export const TYPE_URL: Record<number, string> = {
  [TRANSFER_CONTRACT]: `${TYPE_URL_PREFIX}TransferContract`,
  [TRIGGER_SMART_CONTRACT]: `${TYPE_URL_PREFIX}TriggerSmartContract`,
};

const VARINT = 0;
const LEN = 2;

class Writer {
  readonly #parts: number[] = [];
  varint(value: bigint): this {
    if (value < 0n) throw new BaseError('encoding_invalid', 'negative varint');
    let v = value;
    while (v >= 0x80n) {
      this.#parts.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.#parts.push(Number(v));
    return this;
  }
  tag(field: number, wire: number): this {
    return this.varint(BigInt((field << 3) | wire));
  }
  /** A varint field; proto3 leaves zero out. */
  uint(field: number, value: bigint): this {
    if (value === 0n) return this;
    return this.tag(field, VARINT).varint(value);
  }
  /** A bytes field; proto3 leaves empty bytes out. */
  bytes(field: number, value: Uint8Array): this {
    if (value.length === 0) return this;
    this.tag(field, LEN).varint(BigInt(value.length));
    for (const b of value) this.#parts.push(b);
    return this;
  }
  finish(): Uint8Array {
    return Uint8Array.from(this.#parts);
  }
}

export interface DecodedField {
  field: number;
  wire: number;
  /** VARINT fields. */
  int?: bigint;
  /** LEN fields. */
  bytes?: Uint8Array;
}

/** Every field of one message, in order; throws on a truncated or malformed message or a wire type other than varint/len. */
export function decodeFields(buf: Uint8Array): DecodedField[] {
  const out: DecodedField[] = [];
  let i = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (i >= buf.length) throw new BaseError('encoding_invalid', 'truncated varint');
      const b = buf[i++] as number;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 70n) throw new BaseError('encoding_invalid', 'varint too long');
    }
  };
  while (i < buf.length) {
    const key = varint();
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (field === 0) throw new BaseError('encoding_invalid', 'field number 0');
    if (wire === VARINT) out.push({ field, wire, int: varint() });
    else if (wire === LEN) {
      const len = Number(varint());
      if (i + len > buf.length) throw new BaseError('encoding_invalid', 'truncated field');
      out.push({ field, wire, bytes: buf.subarray(i, i + len) });
      i += len;
    } else throw new BaseError('encoding_invalid', `unsupported wire type ${wire}`);
  }
  return out;
}

export interface RawTransaction {
  refBlockBytes: Uint8Array;
  refBlockHash: Uint8Array;
  /** Milliseconds since the epoch. */
  expiration: bigint;
  timestamp: bigint;
  /** raw_data.data: the memo bytes. */
  data: Uint8Array;
  feeLimit: bigint;
  contractType: number;
  /** The Any's value: the contract message itself. */
  contract: Uint8Array;
}

export interface TransferContract {
  owner: Uint8Array;
  to: Uint8Array;
  amount: bigint;
}

export interface TriggerSmartContract {
  owner: Uint8Array;
  contractAddress: Uint8Array;
  callValue: bigint;
  data: Uint8Array;
  callTokenValue: bigint;
  tokenId: bigint;
}

export const encodeTransferContract = (c: TransferContract): Uint8Array =>
  new Writer().bytes(1, c.owner).bytes(2, c.to).uint(3, c.amount).finish();

export const encodeTriggerSmartContract = (c: TriggerSmartContract): Uint8Array =>
  new Writer()
    .bytes(1, c.owner)
    .bytes(2, c.contractAddress)
    .uint(3, c.callValue)
    .bytes(4, c.data)
    .uint(5, c.callTokenValue)
    .uint(6, c.tokenId)
    .finish();

export function encodeRawTransaction(r: RawTransaction): Uint8Array {
  const typeUrl = TYPE_URL[r.contractType];
  if (!typeUrl) throw new BaseError('encoding_invalid', `unsupported contract type ${r.contractType}`);
  const any = new Writer().bytes(1, new TextEncoder().encode(typeUrl)).bytes(2, r.contract).finish();
  const contract = new Writer().uint(1, BigInt(r.contractType)).bytes(2, any).finish();
  return new Writer()
    .bytes(1, r.refBlockBytes)
    .bytes(4, r.refBlockHash)
    .uint(8, r.expiration)
    .bytes(10, r.data)
    .bytes(11, contract)
    .uint(14, r.timestamp)
    .uint(18, r.feeLimit)
    .finish();
}

/** The signed transaction as `/wallet/broadcasthex` takes it: raw_data and the signatures. */
export const encodeSignedTransaction = (raw: Uint8Array, signatures: Uint8Array[]): Uint8Array => {
  const w = new Writer().bytes(1, raw);
  for (const s of signatures) w.bytes(2, s);
  return w.finish();
};

/** Fields a decoder met that the model above does not carry: a transaction with any is refused. */
export class UnexpectedFieldError extends BaseError {
  constructor(message: string) {
    super('encoding_invalid', message);
  }
}

function only(fields: DecodedField[], allowed: Record<number, number>, what: string): Map<number, DecodedField> {
  const seen = new Map<number, DecodedField>();
  for (const f of fields) {
    if (allowed[f.field] !== f.wire)
      throw new UnexpectedFieldError(`${what} carries field ${f.field} (wire ${f.wire}), which walletd never signs`);
    if (seen.has(f.field)) throw new UnexpectedFieldError(`${what} repeats field ${f.field}`);
    seen.set(f.field, f);
  }
  return seen;
}

const bytesOf = (m: Map<number, DecodedField>, field: number): Uint8Array => m.get(field)?.bytes ?? new Uint8Array(0);
const intOf = (m: Map<number, DecodedField>, field: number): bigint => m.get(field)?.int ?? 0n;

/** Decodes raw_data strictly: one contract, only the fields above. */
export function decodeRawTransaction(raw: Uint8Array): RawTransaction {
  const top = only(decodeFields(raw), { 1: LEN, 4: LEN, 8: VARINT, 10: LEN, 11: LEN, 14: VARINT, 18: VARINT }, 'raw_data');
  const contract = only(decodeFields(bytesOf(top, 11)), { 1: VARINT, 2: LEN }, 'the contract');
  const any = only(decodeFields(bytesOf(contract, 2)), { 1: LEN, 2: LEN }, 'the contract parameter');
  const contractType = Number(intOf(contract, 1));
  const typeUrl = new TextDecoder().decode(bytesOf(any, 1));
  if (TYPE_URL[contractType] !== typeUrl) throw new UnexpectedFieldError(`contract type ${contractType} with parameter ${typeUrl}`);
  return {
    refBlockBytes: bytesOf(top, 1),
    refBlockHash: bytesOf(top, 4),
    expiration: intOf(top, 8),
    data: bytesOf(top, 10),
    timestamp: intOf(top, 14),
    feeLimit: intOf(top, 18),
    contractType,
    contract: bytesOf(any, 2),
  };
}

export function decodeTransferContract(value: Uint8Array): TransferContract {
  const m = only(decodeFields(value), { 1: LEN, 2: LEN, 3: VARINT }, 'TransferContract');
  return { owner: bytesOf(m, 1), to: bytesOf(m, 2), amount: intOf(m, 3) };
}

export function decodeTriggerSmartContract(value: Uint8Array): TriggerSmartContract {
  const m = only(decodeFields(value), { 1: LEN, 2: LEN, 3: VARINT, 4: LEN, 5: VARINT, 6: VARINT }, 'TriggerSmartContract');
  return {
    owner: bytesOf(m, 1),
    contractAddress: bytesOf(m, 2),
    callValue: intOf(m, 3),
    data: bytesOf(m, 4),
    callTokenValue: intOf(m, 5),
    tokenId: intOf(m, 6),
  };
}

/** A signed transaction (`/wallet/broadcasthex` form): raw_data and its signatures; `ret` is ignored, anything else refused. */
export function decodeSignedTransaction(tx: Uint8Array): { raw: Uint8Array; signatures: Uint8Array[] } {
  let raw: Uint8Array | null = null;
  const signatures: Uint8Array[] = [];
  for (const f of decodeFields(tx)) {
    if (f.field === 1 && f.wire === LEN && raw === null) raw = f.bytes as Uint8Array;
    else if (f.field === 2 && f.wire === LEN) signatures.push(f.bytes as Uint8Array);
    else if (f.field === 5 && f.wire === LEN) continue;
    else throw new UnexpectedFieldError(`the transaction carries field ${f.field}, which walletd never signs`);
  }
  if (raw === null) throw new UnexpectedFieldError('the transaction has no raw_data');
  return { raw, signatures };
}
