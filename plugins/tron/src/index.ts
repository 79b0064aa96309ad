export * from './createTronPlugin';
export * from './addresses';
export * from './networks';
export { TRANSFER_TOPIC, detect } from './detect';
export { INTERNAL_EVENT_BASE } from './internalTransfers';
export { type TronReader, createTronReader } from './reader';
export { createTronHttp } from './tronHttp';
export { createTronWithdrawals } from './verbs';
export { EXPIRATION_MS, type TronTxPayload, assemble, transferCalldata } from './payload';
export { bandwidthBytes } from './verbs/build';
export { nodeRefusal as broadcastRefusal } from './nodeRefusal';
export * as tronProtobuf from './protobuf';

/** What walletd calls when the package is named in the config's `plugins` (see plugins/README.md). */
export { createTronPlugin as createPlugin } from './createTronPlugin';
