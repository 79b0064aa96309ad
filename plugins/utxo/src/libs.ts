/**
 * The bitcoinjs family ships CommonJS builds, but declares its types inside "type": "module"
 * packages, which TypeScript's node16 resolution then refuses to `import` from CommonJS. The
 * runtime is plain `require` of their CJS builds; the types come from `import()` type queries.
 */
type Bip32 = typeof import('bip32', { with: { 'resolution-mode': 'require' }});
type Bitcoin = typeof import('bitcoinjs-lib', { with: { 'resolution-mode': 'require' }});
type Ecpair = typeof import('ecpair', { with: { 'resolution-mode': 'require' }});
type Secp256k1 = typeof import('tiny-secp256k1', { with: { 'resolution-mode': 'require' }});

export const bitcoin: Bitcoin = require('bitcoinjs-lib');
export const ecc: Secp256k1 = require('tiny-secp256k1');
export const bip32: ReturnType<Bip32['BIP32Factory']> = (require('bip32') as Bip32).BIP32Factory(ecc);
export const ecpair: ReturnType<Ecpair['ECPairFactory']> = (require('ecpair') as Ecpair).ECPairFactory(ecc);
export type Network = import('bitcoinjs-lib', { with: { 'resolution-mode': 'require' }}).Network;
