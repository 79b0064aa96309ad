import { type ConfirmFn, confirmByDepth } from '@walletd/plugin-kit';

/**
 * Depth finality from the kit: a deposit is final `threshold` blocks deep (its own block counts);
 * litecoin has no finalized height of its own. Nothing in no block (a reorg detached it) is ever
 * confirmed.
 */
export const confirm: ConfirmFn = confirmByDepth;
