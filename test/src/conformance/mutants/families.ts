import type { ChainPlugin, DetectFn } from '@walletd/plugin-kit';
import { createPolkadotPlugin } from '@walletd/plugin-polkadot';
import { createSolanaPlugin } from '@walletd/plugin-solana';
import { createTonPlugin } from '@walletd/plugin-ton';
import { createTronPlugin } from '@walletd/plugin-tron';
import { createUtxoPlugin } from '@walletd/plugin-utxo';
import { createXrpPlugin } from '@walletd/plugin-xrp';

/** The real plugin of each non-EVM family, whose detect each mutant in this folder wraps. */
export const REAL: Record<'solana' | 'tron' | 'xrp' | 'ton' | 'utxo' | 'polkadot', ChainPlugin> = {
  solana: createSolanaPlugin() as unknown as ChainPlugin,
  tron: createTronPlugin(),
  xrp: createXrpPlugin(),
  ton: createTonPlugin(),
  utxo: createUtxoPlugin(),
  polkadot: createPolkadotPlugin() as unknown as ChainPlugin,
};
export const realDetectOf = (family: keyof typeof REAL): DetectFn => (require(REAL[family].detectModule) as { detect: DetectFn }).detect;

type Json = Record<string, any>;
/** Rewrites the raw JSON block before the real detect reads it (a plugin that ignores a field). */
export const rewritingJson =
  (family: keyof typeof REAL, rewrite: (block: Json) => void): DetectFn =>
  (raw, ctx) => {
    const parsed = JSON.parse(new TextDecoder().decode(raw)) as Json;
    rewrite(parsed);
    return realDetectOf(family)(new TextEncoder().encode(JSON.stringify(parsed)), ctx);
  };
