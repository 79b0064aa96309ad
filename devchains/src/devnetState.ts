import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Logger } from '@walletd/core';

/**
 * anvil's `--state` file and what a reload makes of it. On each start anvil creates a genesis
 * block stamped with the current time, and its next dump holds that block beside the restored
 * one: the file ends up with one block 0 per restart, and a reload picks one of them in hash-map
 * order. When it picks a later one, block 0's hash is no longer block 1's parentHash and the
 * restored chain is broken. We keep the first genesis (the oldest timestamp: the chain's real
 * one) before anvil loads the file, then check the links anvil restored.
 */
interface DumpedBlock {
  header: { number: string; timestamp: string };
}

/** Drops the re-created genesis copies from a state dump. False when the file is not a dump we can read. */
export function keepFirstGenesis(stateFile: string, logger: Logger): boolean {
  if (!existsSync(stateFile)) return true;
  let state: { blocks?: DumpedBlock[] };
  try {
    state = JSON.parse(readFileSync(stateFile, 'utf8'));
  } catch {
    return false;
  }
  if (!Array.isArray(state.blocks)) return true; // a dump without history: nothing to link
  const genesis = state.blocks.filter((b) => BigInt(b.header.number) === 0n);
  if (genesis.length <= 1) return true;
  const first = genesis.reduce((a, b) => (BigInt(b.header.timestamp) < BigInt(a.header.timestamp) ? b : a));
  state.blocks = state.blocks.filter((b) => BigInt(b.header.number) !== 0n || b === first);
  writeFileSync(stateFile, JSON.stringify(state));
  logger.debug({ dropped: genesis.length - 1 }, 'dropped the genesis blocks anvil re-created on earlier restarts');
  return true;
}

type Rpc = <T>(method: string, params?: unknown[]) => Promise<T>;

/**
 * Why the chain anvil restored cannot be trusted, or null when it links up: block 1's parent is
 * block 0, and block 0 is the genesis saved when the devnet was created (when one was saved).
 */
export async function restoredChainProblem(rpc: Rpc, savedGenesis: string | undefined): Promise<string | null> {
  const head = BigInt(await rpc<string>('eth_blockNumber'));
  const block0 = await rpc<{ hash: string }>('eth_getBlockByNumber', ['0x0', false]);
  if (savedGenesis && block0.hash !== savedGenesis) return `block 0 is ${block0.hash}, not the saved genesis ${savedGenesis}`;
  if (head === 0n) return null;
  const block1 = await rpc<{ parentHash: string } | null>('eth_getBlockByNumber', ['0x1', false]);
  if (!block1) return 'block 1 is missing';
  if (block1.parentHash !== block0.hash) return `block 1's parent ${block1.parentHash} is not block 0 ${block0.hash}`;
  return null;
}

/** Moves a state that cannot be restored aside (kept for a look, never loaded again). */
export function discardState(stateFile: string): string {
  const aside = `${stateFile}.discarded-${Date.now()}`;
  if (existsSync(stateFile)) renameSync(stateFile, aside);
  return aside;
}
