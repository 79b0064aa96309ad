import type { Db } from '../db/createDb';

/**
 * What the indexer following one chain/network last saw, as `/readyz` reads it.
 *
 * `status` is `ok` or `failing`; a failing record names why in `reason`:
 * - `node_unreachable`: the node could not be reached this round (connection refused or lost, a timeout);
 * - `node_error`: the node answered, with an HTTP error, a body that is not JSON-RPC, or a JSON-RPC error;
 * - `disk_full`: the database refused a write for lack of disk space (53100, ENOSPC);
 * - `round_failed`: the round failed for another reason (the error is in `lastError`).
 * - `wrong_heights`: the node answered a block of another height than the one asked (see wrongHeightError);
 * - `answer_too_large`: a node answer went over the chain's `maxResponseBytes` (see readCapped).
 * - `traces_unavailable`: the node answered a block but not its call traces (EVM; the block is read again).
 * More reasons (a chain the indexer stopped following) are added here, one value each; readiness
 * treats any non-`ok` status as not ready and reports its reason as is.
 */
export type ChainHealthStatus = 'ok' | 'failing';

export interface ChainHealth {
  chain: string;
  network: string;
  status: ChainHealthStatus;
  reason: string | null;
  nodeReachable: boolean;
  /** Latest head the node reported (the last known one while it is unreachable). */
  head: bigint | null;
  indexed: bigint | null;
  lastError: string | null;
}

export interface ChainHealthRow extends ChainHealth {
  /** Milliseconds since the indexer wrote the record, by the database clock. */
  ageMs: number;
}

export async function publishChainHealth(db: Db, h: ChainHealth): Promise<void> {
  await db('chain_health')
    .insert({
      chain: h.chain,
      network: h.network,
      status: h.status,
      reason: h.reason,
      node_reachable: h.nodeReachable,
      head: h.head === null ? null : h.head.toString(),
      indexed: h.indexed === null ? null : h.indexed.toString(),
      // Bounded: a node's error text can be long, and this row is rewritten every round.
      last_error: h.lastError === null ? null : h.lastError.slice(0, 500),
      updated_at: db.fn.now(),
    })
    .onConflict(['chain', 'network'])
    .merge();
}

interface Row {
  chain: string;
  network: string;
  status: ChainHealthStatus;
  reason: string | null;
  node_reachable: boolean;
  head: number | null;
  indexed: number | null;
  last_error: string | null;
  age_ms: number;
}

export async function readChainHealth(db: Db): Promise<ChainHealthRow[]> {
  const rows = (await db('chain_health').select(
    '*',
    db.raw('(extract(epoch from (now() - updated_at)) * 1000)::float8 as age_ms'),
  )) as Row[];
  return rows.map((r) => ({
    chain: r.chain,
    network: r.network,
    status: r.status,
    reason: r.reason,
    nodeReachable: r.node_reachable,
    head: r.head === null ? null : BigInt(r.head),
    indexed: r.indexed === null ? null : BigInt(r.indexed),
    lastError: r.last_error,
    ageMs: Number(r.age_ms),
  }));
}
