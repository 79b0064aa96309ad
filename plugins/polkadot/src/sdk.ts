import { onFirstUse } from '@walletd/plugin-kit';

/**
 * The polkadot.js packages that weigh (9 MB of heap with their WASM crypto and type registry),
 * required by the first verb that needs them, not with the plugin: plugin-kit's onFirstUse says
 * why. `@polkadot/util` (byte helpers) stays a plain import.
 */
export const utilCrypto = onFirstUse(() => require('@polkadot/util-crypto') as typeof import('@polkadot/util-crypto'));
export const polkadotTypes = onFirstUse(() => require('@polkadot/types') as typeof import('@polkadot/types'));
