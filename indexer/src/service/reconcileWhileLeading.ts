import type { Logger } from '@walletd/core';
import { LeaseLostError } from '../lease/chainLease';

/** The reconciliation the indexer runs per chain it leads (the server's `reconcileChain`). */
export interface Reconciler {
  /** In the log line of a failed run ("reconciliation" unless told: the sweeper runs in the same loop). */
  name?: string;
  /** Between two runs; 0 turns reconciliation off. */
  intervalMs: number;
  /**
   * When set, the first run after taking the lead comes this long after the chain's first follow
   * round that reached the head (or after `intervalMs`, if the follower never gets there), not a
   * whole interval after. Unset: the first run comes `intervalMs` after taking the lead.
   */
  firstRunDelayMs?: number;
  /** One run over the chain's next addresses; ends early when `shouldStop` says so. */
  run(key: { chain: string; network: string }, shouldStop: () => boolean): Promise<unknown>;
  /**
   * The quick second look: when a run (or a recheck) resolves to `{ recheckInMs }`, this is called
   * that long after, instead of the next run waiting a whole interval.
   */
  recheck?(key: { chain: string; network: string }, shouldStop: () => boolean): Promise<unknown>;
}

export interface ReconcileLoop {
  key: { chain: string; network: string };
  logger: Logger;
  /** This process still leads the chain and is not stopping. */
  leading: () => boolean;
  /** The chain is stopped or writes are paused: nothing is judged against that node until it resumes. */
  held: () => boolean;
  /** A follow round has reached the chain's head since this process took the lead. */
  caughtUp?: () => boolean;
  /** Waits, woken early when the indexer stops or the lease is lost. */
  sleep: (ms: number) => Promise<void>;
}

/** Rechecks in a row at most: a drift whose amount changes at every look waits for the next run. */
const MAX_RECHECKS = 3;
/** How often a reconciliation waiting for the first caught-up round looks again. */
const CATCH_UP_POLL_MS = 500;

/**
 * Reconciliation while this process leads the chain: one run every `intervalMs`, the first one
 * `firstRunDelayMs` after the follower first caught up (docs/guide/reconciliation.md), or an interval
 * after taking the lead when that is unset. A run that asks for a second look (`recheckInMs`) gets
 * it that soon. Only the chain's leader runs it, so a chain is compared once however many indexers
 * stand by. A failing run (the node is down) is logged and tried again next interval; never rejects.
 */
export async function reconcileWhileLeading(reconciler: Reconciler | undefined, loop: ReconcileLoop): Promise<void> {
  if (!reconciler || reconciler.intervalMs <= 0) return;
  const { key, logger } = loop;
  const wait = async (ms: number) => {
    // Woken early (another chain's lease, a stop): wait out the rest unless the lead ended.
    const due = Date.now() + ms;
    while (loop.leading() && Date.now() < due) await loop.sleep(due - Date.now());
  };
  if (reconciler.firstRunDelayMs === undefined) await wait(reconciler.intervalMs);
  else {
    const giveUp = Date.now() + reconciler.intervalMs;
    while (loop.leading() && !(loop.caughtUp?.() ?? true) && Date.now() < giveUp)
      await loop.sleep(Math.min(CATCH_UP_POLL_MS, giveUp - Date.now()));
    await wait(reconciler.firstRunDelayMs);
  }
  let rechecks = 0;
  while (loop.leading()) {
    let next = reconciler.intervalMs;
    const rechecking = rechecks > 0;
    if (!loop.held()) {
      try {
        const shouldStop = () => !loop.leading();
        const outcome =
          rechecking && reconciler.recheck ? await reconciler.recheck(key, shouldStop) : await reconciler.run(key, shouldStop);
        const soon = recheckInMs(outcome);
        if (soon !== null && reconciler.recheck && rechecks < MAX_RECHECKS) {
          next = soon;
          rechecks++;
        } else rechecks = 0;
      } catch (err) {
        if (err instanceof LeaseLostError) break;
        rechecks = 0;
        logger.warn({ err, ...key }, `${reconciler.name ?? 'reconciliation'} run failed; trying again next interval`);
      }
    } else rechecks = 0;
    await wait(next);
  }
}

function recheckInMs(outcome: unknown): number | null {
  if (typeof outcome !== 'object' || outcome === null || !('recheckInMs' in outcome)) return null;
  const ms = (outcome as { recheckInMs: unknown }).recheckInMs;
  return typeof ms === 'number' && ms >= 0 ? ms : null;
}
