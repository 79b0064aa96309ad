import { walkTransactions } from './walkTransactions';

const AUXPOW_FLAG = 0x100;

function varint(buf: Uint8Array, at: number): { value: number; size: number } {
  const first = buf[at] as number;
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (first < 0xfd) return { value: first, size: 1 };
  if (first === 0xfd) return { value: view.getUint16(at + 1, true), size: 3 };
  if (first === 0xfe) return { value: view.getUint32(at + 1, true), size: 5 };
  return { value: Number(view.getBigUint64(at + 1, true)), size: 9 };
}

/**
 * Merge-mined blocks (dogecoin since block 371 337) carry an AuxPoW proof between the 80-byte
 * header and the transactions: the parent chain's coinbase transaction, the parent block hash, two
 * merkle branches and the parent header. None of it is needed to find deposits, so it is cut out
 * and the block reads as a plain one; its hash is still the hash of its own 80-byte header.
 */
export function stripAuxPow(block: Uint8Array): Uint8Array {
  const version = new DataView(block.buffer, block.byteOffset, block.byteLength).getUint32(0, true);
  if ((version & AUXPOW_FLAG) === 0) return block;
  // The parent's coinbase transaction, then the parent block hash.
  let at = walkTransactions(block, 80, 1, () => {}) + 32;
  for (let branch = 0; branch < 2; branch++) {
    const n = varint(block, at);
    at += n.size + n.value * 32 + 4; // hashes, then the side mask
  }
  at += 80; // parent block header
  const out = new Uint8Array(80 + block.length - at);
  out.set(block.subarray(0, 80));
  out.set(block.subarray(at), 80);
  return out;
}
