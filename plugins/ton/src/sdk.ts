import { onFirstUse } from '@walletd/plugin-kit';

/**
 * @ton/ton (the wallet contracts; it brings axios, dataloader and zod: 5 MB of heap), required by
 * the first verb that needs a wallet contract, not with the plugin: plugin-kit's onFirstUse says
 * why. @ton/core (addresses, cells) stays a plain import.
 */
export const tonClient = onFirstUse(() => require('@ton/ton') as typeof import('@ton/ton'));
