import { createHash } from 'node:crypto';

/** Bitcoin-family hashes from node:crypto: the plugin needs no hashing library. */
export const sha256 = (data: Uint8Array): Buffer => createHash('sha256').update(data).digest();

/** Transaction and block ids, sighashes: SHA-256 twice. */
export const hash256 = (data: Uint8Array): Buffer => sha256(sha256(data));

/** Public key hashes: RIPEMD-160 of SHA-256. */
export const hash160 = (data: Uint8Array): Buffer => createHash('ripemd160').update(sha256(data)).digest();

/** Ids are shown byte-reversed (the node's `txid` and block hash form). */
export const reversedHex = (bytes: Uint8Array): string => Buffer.from(bytes).reverse().toString('hex');
