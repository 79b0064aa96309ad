export * from './addresses';
export * from './coins';
export * from './createUtxoPlugin';
export * from './detect';
export * from './networks';
export * from './reader';
export * from './verbs';
export { bip32, bitcoin, ecc } from './libs';

/** What walletd calls when the package is named in the config's `plugins` (see plugins/README.md). */
export { createUtxoPlugin as createPlugin } from './createUtxoPlugin';
export * from './verbs/consolidate';
