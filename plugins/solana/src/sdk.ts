import { onFirstUse } from '@walletd/plugin-kit';

/**
 * @solana/kit and the program clients (4 MB of heap: RPC, subscriptions, codecs), required by the
 * first verb that needs them, not with the plugin: plugin-kit's onFirstUse says why.
 */
export const solanaKit = onFirstUse(() => require('@solana/kit') as typeof import('@solana/kit'));
export const tokenProgram = onFirstUse(() => require('@solana-program/token') as typeof import('@solana-program/token'));
export const systemProgram = onFirstUse(() => require('@solana-program/system') as typeof import('@solana-program/system'));
export const computeBudget = onFirstUse(() => require('@solana-program/compute-budget') as typeof import('@solana-program/compute-budget'));
