import { type Transaction, bitcoin } from './libs';
import { BaseError } from '@walletd/plugin-kit';

/** Litecoin's flag bit for MimbleWimble extension-block data (MWEB, LIP-0002), after the witnesses. */
const MWEB_FLAG = 0x08;
const WITNESS_FLAG = 0x01;

/**
 * The transaction at `at` in `bytes` and its length there, read by bitcoinjs-lib. The one thing
 * no bitcoin library reads is Litecoin's MWEB serialization: flag bit 0x08, then the MWEB data
 * before the lock time. The pegin and HogEx transactions of MWEB blocks carry it empty (one 0x00
 * byte): their transparent part is handed to bitcoinjs-lib as bitcoin's serialization (the flag
 * byte without 0x08, the empty MWEB byte skipped). A transaction carrying MWEB data is refused.
 */
export function readTransaction(bytes: Uint8Array, at = 0): { tx: Transaction; length: number } {
  const flag = bytes[at + 5] as number;
  if (bytes[at + 4] !== 0 || (flag & MWEB_FLAG) === 0) {
    const tx = bitcoin.Transaction.fromBuffer(bytes.subarray(at), true);
    return { tx, length: tx.byteLength() };
  }
  if ((flag & ~(MWEB_FLAG | WITNESS_FLAG)) !== 0)
    throw new BaseError('encoding_invalid', `unknown transaction flags 0x${flag.toString(16)}`);
  const witness = (flag & WITNESS_FLAG) !== 0;
  // Bitcoin's form of the same bytes: the marker and flag kept as 0x00 0x01 with witnesses, dropped without.
  const version = bytes.subarray(at, at + 4);
  const rest = bytes.subarray(at + 6);
  const copy = Buffer.concat(witness ? [version, Buffer.from([0, WITNESS_FLAG]), rest] : [version, rest]);
  // It reads the MWEB byte and three lock-time bytes as the lock time: the structure, hence the
  // length, is right; the lock time is set from its real place below.
  const tx = bitcoin.Transaction.fromBuffer(copy, true);
  const mwebAt = at + tx.byteLength() - 4 + (witness ? 0 : 2);
  if (mwebAt + 5 > bytes.length) throw new BaseError('encoding_invalid', 'transaction data ends early');
  if (bytes[mwebAt] !== 0) throw new BaseError('encoding_invalid', 'a transaction with MWEB data (not read by this plugin)');
  tx.locktime = Buffer.from(bytes.buffer, bytes.byteOffset + mwebAt + 1, 4).readUInt32LE(0);
  return { tx, length: mwebAt + 5 - at };
}
