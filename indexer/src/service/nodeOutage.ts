import { type Logger, type Metrics, NodeCallError, isBaseError } from '@walletd/core';

/** The loops of one chain that call its node: a round of either can find it down. */
export type NodeLoop = 'follow' | 'withdrawals';

export interface NodeOutage {
  /**
   * A round failed. A node failure is counted (`walletd_node_errors_total`) and returns true; the
   * first one of an outage logs one line with the cause. Anything else returns false, untouched.
   */
  failed(loop: NodeLoop, err: unknown): boolean;
  /** A round succeeded: the outage ends once every loop that failed in it succeeded again. */
  succeeded(loop: NodeLoop): void;
}

/** What a failed node call was, in a word for the metric's `kind` label. */
export function nodeFailureKind(err: unknown): string | null {
  if (err instanceof NodeCallError) return err.node.kind;
  return isBaseError(err) && err.code === 'node_error' ? 'other' : null;
}

const WORDS: Record<string, string> = {
  unreachable: 'unreachable',
  timeout: 'not answering in time',
  http: 'answering with HTTP errors',
  rpc: 'answering with errors',
  too_large: 'answering more than chains[].maxResponseBytes',
  wrong_height: 'serving blocks of other heights than asked',
};

/**
 * A node outage in the log as two lines, not two stack traces per round: one when the first
 * round fails (the cause in words, no stack: it is the node's state, not a bug of ours), one when
 * it is over (how long it lasted, how many rounds failed). Shared by the chain's follow and
 * withdrawal loops, so a down node is one outage per chain; every failed round is still counted
 * in the metric. An outage ends only when every loop that failed in it succeeded again, so a
 * failure one loop meets alone (a block too large for the follower) does not open and close it
 * at every round.
 */
export function createNodeOutage(logger: Logger, where: { chain: string; network: string }, metrics?: Metrics): NodeOutage {
  const failing = new Set<NodeLoop>();
  let since = 0;
  let rounds = 0;
  const name = `${where.chain}/${where.network}`;
  return {
    failed(loop, err) {
      const kind = nodeFailureKind(err);
      if (kind === null) return false;
      metrics?.nodeErrors.inc({ ...where, kind });
      rounds++;
      if (failing.size === 0) {
        since = Date.now();
        rounds = 1;
        const cause = err instanceof Error ? err.message : String(err);
        logger.error({ ...where, kind, loop }, `${name} node ${WORDS[kind] ?? 'failing'}: ${cause}; retrying with back-off`);
      }
      failing.add(loop);
      return true;
    },
    succeeded(loop) {
      if (!failing.delete(loop) || failing.size > 0) return;
      const downMs = Date.now() - since;
      logger.warn(
        { ...where, downMs, failedRounds: rounds },
        `${name} node answers again after ${Math.round(downMs / 1000)} s; ${rounds} rounds failed`,
      );
    },
  };
}
