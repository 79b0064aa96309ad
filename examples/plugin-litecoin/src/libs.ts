/**
 * The bitcoinjs family: the same libraries (and versions) as walletd's own bitcoin plugin, kept
 * by people who do this full time. Addresses, scripts, the transaction format, PSBT signing and
 * BIP-32 come from them, never from code of our own; secp256k1 is tiny-secp256k1 (libsecp256k1
 * compiled to WebAssembly: constant time, RFC 6979 nonces, low S), not bigint arithmetic on keys.
 *
 * They ship CommonJS builds but declare their types inside "type": "module" packages, which
 * TypeScript's node16 resolution refuses to `import` from CommonJS: the runtime is plain `require`,
 * the types come from `import()` type queries.
 */
type Bip32 = typeof import('bip32', { with: { 'resolution-mode': 'require' }});
type Bitcoin = typeof import('bitcoinjs-lib', { with: { 'resolution-mode': 'require' }});
type BufferUtils = typeof import('bitcoinjs-lib/src/bufferutils', { with: { 'resolution-mode': 'require' }});
type Secp256k1 = typeof import('tiny-secp256k1', { with: { 'resolution-mode': 'require' }});
export type BIP32API = ReturnType<Bip32['BIP32Factory']>;
export type Network = import('bitcoinjs-lib', { with: { 'resolution-mode': 'require' }}).Network;
export type Transaction = import('bitcoinjs-lib', { with: { 'resolution-mode': 'require' }}).Transaction;

export const bitcoin: Bitcoin = require('bitcoinjs-lib');
/** bitcoinjs-lib's reader of the wire format (CompactSize counts), one of its exported subpaths. */
export const { BufferReader }: BufferUtils = require('bitcoinjs-lib/src/bufferutils');

let keys: BIP32API | undefined;
/**
 * BIP-32 over tiny-secp256k1, loaded on first use: the detect module (required in every worker
 * thread) reads blocks with `bitcoin` alone and never compiles the curve's WebAssembly.
 */
export function bip32(): BIP32API {
  keys ??= (require('bip32') as Bip32).BIP32Factory(require('tiny-secp256k1') as Secp256k1);
  return keys;
}
