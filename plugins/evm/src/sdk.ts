import { onFirstUse } from '@walletd/plugin-kit';

/** ethers, required by the first verb that needs it, not with the plugin (3.6 MB of heap: plugin-kit's onFirstUse says why). */
export const ethers = onFirstUse(() => require('ethers') as typeof import('ethers'));
