import { createEvmPlugin } from '@walletd/plugin-evm';
import type { DetectFn } from '@walletd/plugin-kit';

/** The real EVM detect, which each mutant wraps. */
export const realDetect = (require(createEvmPlugin().detectModule) as { detect: DetectFn }).detect;
