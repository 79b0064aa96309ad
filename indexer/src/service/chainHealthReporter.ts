import {
  type ChainHealth,
  type Db,
  type Logger,
  NodeCallError,
  isBaseError,
  isDiskFull,
  publishChainHealth,
  readFailureReason,
} from '@walletd/core';
import { ChainHaltedError } from '../lease/chainHalt';
import type { FollowerStats } from '../follower/follower';
import type { ChainKey } from '../types';

/** Writes during a catch-up at most this often (besides every new head and every round's end). */
const PROGRESS_EVERY_MS = 1000;

export interface ChainHealthReporter {
  /** After the head is read and after each block: lag as it is, also mid-round. */
  progress(stats: FollowerStats): void;
  roundSucceeded(stats: FollowerStats): void;
  roundFailed(stats: FollowerStats, err: unknown): void;
  /** Waits for the writes under way (a stopping indexer leaves its last word in the table). */
  flush(): Promise<void>;
}

/** A node that did not answer (or answered an error), told apart from other failures for the operator reading /readyz. */
function reasonOf(err: unknown): string {
  // A stopped chain reports why (genesis_changed, blocks_do_not_link, …): what the operator must act on.
  if (err instanceof ChainHaltedError) return err.reason;
  // The node answers, but blocks of other heights than asked: its fault, named as such (not a reorg).
  if (err instanceof NodeCallError && err.node.kind === 'wrong_height') return 'wrong_heights';
  // It answered, more than the chain's maxResponseBytes: the operator raises the cap or fixes the node.
  if (err instanceof NodeCallError && err.node.kind === 'too_large') return 'answer_too_large';
  // A block the node answered only in part (EVM call traces that failed: `traces_unavailable`).
  const partial = readFailureReason(err);
  if (partial !== null) return partial;
  if (isDiskFull(err)) return 'disk_full';
  // It answered, with an HTTP error, junk or a JSON-RPC error: reachable, and broken (issue 43 §6).
  if (err instanceof NodeCallError && (err.node.kind === 'http' || err.node.kind === 'rpc')) return 'node_error';
  return isBaseError(err) && err.code === 'node_error' ? 'node_unreachable' : 'round_failed';
}

/**
 * The follower's view of its chain, published to `chain_health` for readiness. Writes are chained
 * (never two at once, the latest state wins) and a failed write is only logged: the database
 * being down is readiness' own check.
 */
export function createChainHealthReporter(db: Db, key: ChainKey, logger: Logger): ChainHealthReporter {
  let writing: Promise<void> | null = null;
  let queued: ChainHealth | null = null;
  let lastHead: bigint | null = null;
  let lastAt = 0;

  function write(record: ChainHealth): void {
    lastAt = Date.now();
    lastHead = record.head;
    if (writing) {
      queued = record;
      return;
    }
    writing = publishChainHealth(db, record)
      .catch((err: unknown) => logger.warn({ err, ...key }, 'could not record chain health'))
      .finally(() => {
        writing = null;
        const next = queued;
        queued = null;
        if (next) write(next);
      });
  }
  const record = (stats: FollowerStats, failure: { reason: string; error: string } | null, nodeReachable: boolean): ChainHealth => ({
    ...key,
    status: failure ? 'failing' : 'ok',
    reason: failure?.reason ?? null,
    nodeReachable,
    head: stats.head,
    indexed: stats.indexed,
    lastError: failure?.error ?? null,
  });

  return {
    progress(stats) {
      if (stats.head === lastHead && Date.now() - lastAt < PROGRESS_EVERY_MS) return;
      write(record(stats, null, true));
    },
    roundSucceeded(stats) {
      write(record(stats, null, true));
    },
    roundFailed(stats, err) {
      const reason = reasonOf(err);
      write(record(stats, { reason, error: err instanceof Error ? err.message : String(err) }, reason !== 'node_unreachable'));
    },
    async flush() {
      while (writing) await writing;
    },
  };
}
