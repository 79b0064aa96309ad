export * from './createXrpPlugin';
export * from './addresses';
export * from './currency';
export * from './issuedAmount';
export * from './networks';
export { TF_PARTIAL_PAYMENT, detect } from './detect';
export { type XrpReader, createXrpReader } from './reader';
export * from './verbs';

/** What walletd calls when the package is named in the config's `plugins` (see plugins/README.md). */
export { createXrpPlugin as createPlugin } from './createXrpPlugin';
