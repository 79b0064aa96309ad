/** Reads the bitcoin wire format: little-endian integers, CompactSize lengths. */
export class ByteReader {
  offset = 0;
  constructor(readonly bytes: Uint8Array) {}

  take(n: number): Uint8Array {
    if (this.offset + n > this.bytes.length) throw new RangeError(`read past the end (${this.offset + n} > ${this.bytes.length})`);
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  u8(): number {
    return this.take(1)[0] as number;
  }

  u32(): number {
    const b = this.take(4);
    return ((b[0] as number) | ((b[1] as number) << 8) | ((b[2] as number) << 16)) + (b[3] as number) * 0x1000000;
  }

  /** Amounts: exact, never through a float. */
  u64(): bigint {
    const b = this.take(8);
    let v = 0n;
    for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(b[i] as number);
    return v;
  }

  varint(): number {
    const first = this.u8();
    if (first < 0xfd) return first;
    if (first === 0xfd) return this.u8() | (this.u8() << 8);
    if (first === 0xfe) return this.u32();
    const big = this.u64();
    if (big > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('length out of range');
    return Number(big);
  }

  varBytes(): Uint8Array {
    return this.take(this.varint());
  }
}

export const u32le = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};

export const u64le = (n: bigint): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
};

export function varint(n: number): Buffer {
  if (n < 0xfd) return Buffer.from([n]);
  if (n <= 0xffff) return Buffer.from([0xfd, n & 0xff, n >>> 8]);
  return Buffer.concat([Buffer.from([0xfe]), u32le(n)]);
}

export const varBytes = (b: Uint8Array): Buffer => Buffer.concat([varint(b.length), b]);
