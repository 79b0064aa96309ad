export * from './addresses';
export * from './coins';
export * from './createUtxoPlugin';
export * from './detectOutputs';
export * from './networks';
export * from './utxoReader';
export * from './withdrawals';
export { bip32, bitcoin } from './libs';

/** What walletd calls when the package is named in the config's `plugins` (see plugins/README.md). */
export { createUtxoPlugin as createPlugin } from './createUtxoPlugin';
export * from './consolidate';
