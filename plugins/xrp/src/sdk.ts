import { onFirstUse } from '@walletd/plugin-kit';

/** xrpl, required by the first verb that needs it, not with the plugin (7 MB of heap: plugin-kit's onFirstUse says why). */
export const xrpl = onFirstUse(() => require('xrpl') as typeof import('xrpl'));
