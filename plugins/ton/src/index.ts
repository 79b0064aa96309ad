export * from './createTonPlugin';
export * from './addresses';
export * from './networks';
export { OP_COMMENT, OP_EXCESSES, OP_TRANSFER_NOTIFICATION, type TonBlock, commentOf, detect } from './detect';
export { type TonReader, createTonReader } from './reader';
export { jettonWallets } from './verbs/tokenAccounts';
export { createTonWithdrawals } from './verbs';
export { JETTON_ATTACHED, TON_FEE_BOUND, type TonMessage, type TonPayload, VALID_FOR_SECONDS } from './payload';

/** What walletd calls when the package is named in the config's `plugins` (see plugins/README.md). */
export { createTonPlugin as createPlugin } from './createTonPlugin';
