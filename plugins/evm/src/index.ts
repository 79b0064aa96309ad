export * from './createEvmPlugin';
export * from './addresses';
export * from './networks';
export { TRANSFER_TOPIC, detect } from './detectTransfers';
export { createEvmReader } from './evmReader';
export * from './quote';
export * from './withdrawals';

/** What walletd calls when the package is named in the config's `plugins` (see plugins/README.md). */
export { createEvmPlugin as createPlugin } from './createEvmPlugin';
