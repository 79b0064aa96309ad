import { type HaltedChain, haltedChains } from './haltedChains';
import { type ChainHealthRow, type Db, type WalletdConfig, isDatabaseUnavailable, readChainHealth } from '@walletd/core';

/**
 * Why a chain is not ready (the `reason` of `/readyz`). Besides these, a failing health record's
 * own reason is passed through as is (`node_unreachable`, `round_failed`, …; see chainHealth.ts).
 */
export type ReadinessReason = 'not_indexed' | 'stale' | 'stalled' | 'lagging' | (string & {});

export interface ChainReadiness {
  chain: string;
  network: string;
  ready: boolean;
  reason?: ReadinessReason;
  nodeReachable: boolean | null;
  head: string | null;
  indexed: string | null;
  lag: string | null;
  ageSeconds: number | null;
  /** Set while the indexer has stopped the chain (its node serves another or an inconsistent chain); `reason` is then its code. */
  halted?: { message: string; since: string };
}

export type Readiness =
  | { ready: true; chains: ChainReadiness[] }
  | { ready: false; database: false }
  | { ready: false; chains: ChainReadiness[] };

function judge(
  config: WalletdConfig,
  settings: WalletdConfig['chains'][number],
  row: ChainHealthRow | undefined,
  halt: HaltedChain | undefined,
): ChainReadiness {
  const judged = judgeHealth(config, settings, row);
  // A stop outlasts the indexer that recorded it (and its health record going stale): it needs the operator.
  return halt ? { ...judged, ready: false, reason: halt.reason, halted: { message: halt.message, since: halt.since } } : judged;
}

/** How old a healthy record may get: `indexer.stalledAfterMs`, or three polls of a slow-polling chain. */
export const stallAfterMs = (config: WalletdConfig, pollIntervalMs: number): number =>
  Math.max(config.indexer.stalledAfterMs, 3 * pollIntervalMs);

function judgeHealth(config: WalletdConfig, settings: WalletdConfig['chains'][number], row: ChainHealthRow | undefined): ChainReadiness {
  const base = { chain: settings.chain, network: settings.network };
  if (!row)
    return { ...base, ready: false, reason: 'not_indexed', nodeReachable: null, head: null, indexed: null, lag: null, ageSeconds: null };
  const lag = row.head !== null && row.indexed !== null && row.head > row.indexed ? row.head - row.indexed : 0n;
  const facts = {
    nodeReachable: row.nodeReachable,
    head: row.head?.toString() ?? null,
    indexed: row.indexed?.toString() ?? null,
    lag: lag.toString(),
    ageSeconds: Math.round(row.ageMs / 1000),
  };
  const poll = settings.pollIntervalMs ?? 2000;
  // A slow-polling chain writes rarely: its record may be as old as three of its polls.
  const maxAgeMs = Math.max(config.indexer.healthMaxAgeMs, 3 * poll);
  const maxLag = BigInt(settings.maxLagBlocks ?? config.indexer.maxLagBlocks);
  let reason: ReadinessReason | undefined;
  if (row.ageMs > maxAgeMs) reason = 'stale';
  else if (row.status !== 'ok') reason = row.reason ?? row.status;
  // An ok record is rewritten by every successful round (one per poll) and every block indexed: one
  // this old means the round under way is stuck, a node that hangs or answers at a byte a second
  // (its calls' deadlines and retries end the round only after ~45 s).
  else if (row.ageMs > stallAfterMs(config, poll)) reason = 'stalled';
  else if (lag > maxLag) reason = 'lagging';
  return reason ? { ...base, ready: false, reason, ...facts } : { ...base, ready: true, ...facts };
}

/**
 * Ready when the database answers and every configured chain's indexer reported recently, healthy,
 * within the lag bound. Read from the database, so an API process judges chains that another
 * process indexes.
 */
export async function checkReadiness(db: Db, config: WalletdConfig): Promise<Readiness> {
  let rows: ChainHealthRow[];
  let halts: HaltedChain[];
  try {
    [rows, halts] = await Promise.all([readChainHealth(db), haltedChains(db, config.chains)]);
  } catch (err) {
    if (isDatabaseUnavailable(err)) return { ready: false, database: false };
    throw err;
  }
  const chains = config.chains.map((settings) =>
    judge(
      config,
      settings,
      rows.find((r) => r.chain === settings.chain && r.network === settings.network),
      halts.find((h) => h.chain === settings.chain && h.network === settings.network),
    ),
  );
  return chains.every((c) => c.ready) ? { ready: true, chains } : { ready: false, chains };
}
