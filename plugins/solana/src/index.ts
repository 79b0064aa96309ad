export * from './createSolanaPlugin';
export * from './addresses';
export * from './networks';
export * from './programs';
export { detect, TOKEN_EVENT_OFFSET } from './detect';
export { summarizeMessage, type MessageSummary } from './message';
export { createSolanaReader, type SolanaReader, SKIPPED_SLOT_CODES } from './reader';
export { associatedTokenAccount, solanaTokenAccounts } from './verbs/tokenAccounts';
export { createSolanaWithdrawals } from './verbs';
export { type SolanaTxPayload, maxFee } from './payload';

/** What walletd calls when the package is named in the config's `plugins` (see plugins/README.md). */
export { createSolanaPlugin as createPlugin } from './createSolanaPlugin';
