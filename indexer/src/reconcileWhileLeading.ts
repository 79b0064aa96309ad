import type { Logger } from '@walletd/core';
import { LeaseLostError } from './chainLease';

/** The reconciliation the indexer runs per chain it leads (the server's `reconcileChain`). */
export interface Reconciler {
  /** In the log line of a failed run ("reconciliation" unless told: the sweeper runs in the same loop). */
  name?: string;
  /** Between two runs; 0 turns reconciliation off. */
  intervalMs: number;
  /** One run over the chain's next addresses; ends early when `shouldStop` says so. */
  run(key: { chain: string; network: string }, shouldStop: () => boolean): Promise<unknown>;
}

export interface ReconcileLoop {
  key: { chain: string; network: string };
  logger: Logger;
  /** This process still leads the chain and is not stopping. */
  leading: () => boolean;
  /** The chain is stopped or writes are paused: nothing is judged against that node until it resumes. */
  held: () => boolean;
  /** Waits, woken early when the indexer stops or the lease is lost. */
  sleep: (ms: number) => Promise<void>;
}

/**
 * Reconciliation while this process leads the chain: one run every `intervalMs`, the first one
 * interval after taking the lead (a starting indexer catches up first). Only the chain's leader
 * runs it, so a chain is compared once however many indexers stand by. A failing run (the node is
 * down) is logged and tried again next interval; never rejects.
 */
export async function reconcileWhileLeading(reconciler: Reconciler | undefined, loop: ReconcileLoop): Promise<void> {
  if (!reconciler || reconciler.intervalMs <= 0) return;
  const { key, logger } = loop;
  while (loop.leading()) {
    // Woken early (another chain's lease, a stop): wait out the rest unless the lead ended.
    const due = Date.now() + reconciler.intervalMs;
    while (loop.leading() && Date.now() < due) await loop.sleep(due - Date.now());
    if (!loop.leading()) break;
    if (loop.held()) continue;
    try {
      await reconciler.run(key, () => !loop.leading());
    } catch (err) {
      if (err instanceof LeaseLostError) break;
      logger.warn({ err, ...key }, `${reconciler.name ?? 'reconciliation'} run failed; trying again next interval`);
    }
  }
}
