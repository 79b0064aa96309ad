export * from './createEvmPlugin';
export * from './addresses';
export * from './networks';
export { TRANSFER_TOPIC, detect } from './detect';
export { createEvmReader } from './reader';
export * from './quote';
export * from './verbs';

/** What walletd calls when the package is named in the config's `plugins` (see plugins/README.md). */
export { createEvmPlugin as createPlugin } from './createEvmPlugin';
export * from './signWithKeySigner';
