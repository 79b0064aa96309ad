export * from './createPolkadotPlugin';
export * from './addresses';
export * from './networks';
export * from './frame';
export { detect } from './detect';
export { createPolkadotReader, type PolkadotReader, type Runtime } from './reader';
export { createPolkadotWithdrawals } from './verbs';
export type { PolkadotPayload } from './payload';
export { feeFromEvents } from './feeFromEvents';
export * from './prepareTransfer';

/** What walletd calls when the package is named in the config's `plugins` (see plugins/README.md). */
export { createPolkadotPlugin as createPlugin } from './createPolkadotPlugin';
