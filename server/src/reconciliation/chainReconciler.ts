import type { Reconciler } from '@walletd/indexer';
import type { CompareDeps, CompareTally } from './compareScopes';
import { recheckDrifts } from './recheckDrifts';
import { reconcileChain } from './reconcileChain';

/**
 * The reconciliation `serve` hands the indexer (docs/guide/reconciliation.md): the first run
 * `firstRunDelayMs` after the chain's follower first caught up, then every `intervalMs`; a run that
 * saw a drift not yet confirmed asks for its second look (`recheckDrifts`) `confirmDelayMs` later.
 */
export function chainReconciler(deps: CompareDeps): Reconciler {
  const r = deps.config.reconciliation;
  const soon = <T extends CompareTally>(t: T) => (t.awaiting > 0 ? { ...t, recheckInMs: r.confirmDelayMs } : t);
  return {
    intervalMs: r.intervalMs,
    firstRunDelayMs: r.firstRunDelayMs,
    run: async (key, shouldStop) => soon(await reconcileChain({ ...deps, shouldStop }, key)),
    recheck: async (key, shouldStop) => soon(await recheckDrifts(deps, key, { shouldStop })),
  };
}
