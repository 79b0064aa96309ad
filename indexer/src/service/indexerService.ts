import {
  type ChainSettings,
  type Db,
  type Logger,
  type Metrics,
  type PluginRegistry,
  BaseError,
  diskFullMessage,
  isDiskFull,
  withRole,
} from '@walletd/core';
import { type ChainHealthReporter, createChainHealthReporter } from './chainHealthReporter';
import { ChainHaltedError, announceHalt, clearHalt } from '../lease/chainHalt';
import { type ChainLease, LeaseLostError, createChainLease } from '../lease/chainLease';
import { type DetectPool, createDetectPool } from '../detect/detectPool';
import { isDeadLocalHolder, localHolderId } from '../lease/leaseHolder';
import { type Follower, createFollower } from '../follower/follower';
import { type NodeOutage, createNodeOutage } from './nodeOutage';
import { createPauseGate } from './pauseGate';
import { type Reconciler, reconcileWhileLeading } from './reconcileWhileLeading';
import { trackWithdrawalsWhileLeading } from './trackWithdrawalsWhileLeading';

export interface Indexer {
  start(): void;
  /** Stops following, hands the leases over and closes the pool. Never rejects. */
  stop(): Promise<void>;
  followers(): Follower[];
}

export interface IndexerDeps {
  db: Db;
  logger: Logger;
  registry: PluginRegistry;
  chains: ChainSettings[];
  threads: number;
  metrics?: Metrics;
  /** How long a lease outlives its last renewal: a dead indexer's chains are taken over after this. */
  leaseTtlMs?: number;
  /** The catch-up window (`indexer.pipelineDepth`, `indexer.pipelineBytes`) and `indexer.inlineDetectBytes` (core config types). */
  pipeline?: { depth: number; bytes: number; inlineDetectBytes: number };
  /** First wait after a chain is stopped (doubling up to 10 minutes) before it is checked again. */
  haltBackoffMs?: number;
  /**
   * Why writes must wait (the database disk below its free-space floor), one line; null to go on.
   * Asked before every round: a paused chain skips its rounds, logged once when it pauses and resumes.
   */
  writesPaused?: () => Promise<string | null>;
  /** The embedded cluster's data directory, named when a round fails on a full disk. */
  databaseDir?: string;
  /** Compares indexed balances with the node's while leading a chain (docs/guide/reconciliation.md). */
  reconciler?: Reconciler;
  /** The chain's sweep rules and its balance ledger check while leading it (docs/guide/sweeps-and-gas.md; docs/guide/withdrawals.md, "the balance ledger"): the same loop, own intervals. */
  sweeper?: Reconciler;
  ledgerCheck?: Reconciler;
  /** Speeds up stuck payouts of a chain with `autoBump` (docs/guide/withdrawals.md, "Stuck payouts"). */
  autoBump?: Reconciler;
}

/** One configured chain's parts, as its loops use them. */
interface ChainRun {
  settings: ChainSettings;
  follower: Follower;
  lease: ChainLease;
  health: ChainHealthReporter;
  outage: NodeOutage;
}

export const DEFAULT_LEASE_TTL_MS = 15_000;
const MAX_HALT_BACKOFF_MS = 600_000;

/**
 * One follower per configured chain/network, all sharing one detect pool. A follower runs only
 * while this process holds the chain's lease (chainLease.ts): a second indexer stands by and
 * takes over when the first stops renewing it (it died, or lost the database for longer than the
 * lease), at once when the holder was a process on this machine that is gone. A follower that finds its lease taken stops at once and stands by; its writes are fenced
 * by the lease epoch, so the two never both write a chain, PostgreSQL restarts included.
 */
export function createIndexer(deps: IndexerDeps): Indexer {
  const logger = withRole(deps.logger, 'indexer');
  const ttl = deps.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const holder = localHolderId();
  // No chains, no threads: the pool exists only when something follows a chain.
  const pool: DetectPool | null =
    deps.chains.length > 0 ? createDetectPool(deps.threads, { inlineBelowBytes: deps.pipeline?.inlineDetectBytes }) : null;
  const followers = deps.chains.map((settings): ChainRun => {
    const plugin = deps.registry.forChain(settings.chain);
    if (!plugin) throw new BaseError('chain_not_supported', `no plugin serves ${settings.chain} (configured in chains[])`);
    const key = { chain: settings.chain, network: settings.network };
    const lease = createChainLease(deps.db, key, holder, ttl, isDeadLocalHolder);
    // Written only by the lease holder: a standby has nothing to say about the chain.
    const health = createChainHealthReporter(deps.db, key, logger);
    return {
      settings,
      lease,
      health,
      outage: createNodeOutage(logger, key, deps.metrics),
      follower: createFollower({
        db: deps.db,
        logger,
        pool: pool as DetectPool,
        plugin,
        settings,
        reader: deps.registry.readerFor(settings), // the process's one reader (closed with the registry's)
        metrics: deps.metrics,
        fence: lease.fence,
        shouldStop: () => !running || lease.epoch() === null,
        onProgress: health.progress,
        pipelineDepth: deps.pipeline?.depth,
        pipelineBytes: deps.pipeline?.bytes,
      }),
    };
  });
  let running = false;
  const loops: Promise<void>[] = [];
  const wakers = new Set<() => void>();
  const wakeAll = () => {
    for (const w of [...wakers]) w();
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakers.add(done);
    });

  /** What the withdrawal loops share with this one (trackWithdrawalsWhileLeading.ts). */
  const shared = { running: () => running, logger, sleep, wakeAll };

  /** Follows while the lease holds; returns when stopped or when another indexer took the lease. */
  async function lead(run: ChainRun): Promise<void> {
    const { settings, follower, lease, health, outage } = run;
    const where = { chain: settings.chain, network: settings.network };
    // Renewed between rounds too: a long catch-up or a slow node must not let the lease lapse.
    const beat = setInterval(
      () => {
        lease.renew().then(
          (held) => {
            if (!held) wakeAll();
          },
          // Unknown (database unreachable): keep going; the fence decides at the next write.
          (err) => logger.warn({ err, ...where }, 'could not renew the indexer lease; retrying'),
        );
      },
      Math.max(100, Math.floor(ttl / 3)),
    );
    let failures = 0;
    let halts = 0;
    let haltedReason: string | null = null;
    const paused = createPauseGate(logger, where, deps.writesPaused);
    const held = () => haltedReason !== null || paused.now;
    let caughtUp = false; // after the first followRound (to the head): the reconciliation's first run may come
    // Withdrawals and reconciliation in loops of their own under the same lease: neither holds up deposits.
    const withdrawals = trackWithdrawalsWhileLeading(shared, settings, follower, lease, outage, held);
    const loop = { key: where, logger, leading: () => running && lease.epoch() !== null, held, caughtUp: () => caughtUp, sleep };
    const side = [deps.reconciler, deps.sweeper, deps.ledgerCheck, deps.autoBump].map((r) => reconcileWhileLeading(r, loop));
    try {
      while (running && lease.epoch() !== null) {
        const poll = settings.pollIntervalMs ?? 2000;
        let delay = poll;
        if (await paused.check()) {
          await sleep(poll);
          continue;
        }
        try {
          await follower.followRound();
          caughtUp = true;
          health.roundSucceeded(follower.stats());
          outage.succeeded('follow');
          if (pool) deps.metrics?.poolUtilization.set(pool.utilization());
          if (haltedReason !== null) {
            await clearHalt(deps.db, where);
            deps.metrics?.chainHalted.set({ ...where, reason: haltedReason }, 0);
            logger.info(where, 'chain resumed: the node serves the indexed chain again');
            haltedReason = null;
          }
          failures = 0;
          halts = 0;
        } catch (err) {
          if (err instanceof LeaseLostError || lease.epoch() === null) break;
          const halt = err instanceof ChainHaltedError ? err : null;
          if (halt) {
            halts++;
            delay = Math.min((deps.haltBackoffMs ?? 30_000) * 2 ** (halts - 1), MAX_HALT_BACKOFF_MS);
            // The stop and its message before the health record that gives /readyz the reason:
            // the other way round, /readyz showed a stop without its message (evmConfiguredNetwork.test).
            await announceHalt({ db: deps.db, logger, metrics: deps.metrics }, where, halt, haltedReason, delay);
            haltedReason = halt.reason;
          }
          health.roundFailed(follower.stats(), err);
          if (!halt && isDiskFull(err)) {
            failures++;
            // Retried within 5 s (not a node's 30 s): freed space is back in /readyz within a round.
            delay = Math.min(poll * 2 ** failures, 5_000); // One line naming the disk, not the failed SQL:
            const path = deps.databaseDir ?? 'the database server';
            logger.error({ ...where, failures, reason: 'disk_full' }, `${diskFullMessage(path)}: follow round failed; retrying`);
          } else if (!halt) {
            failures++;
            // A failing node or database is retried with backoff (doubling, at most 30 s), not hammered.
            delay = Math.min(poll * 2 ** failures, 30_000);
            // A node outage is logged once (nodeOutage.ts); anything else is ours to see each time.
            if (!outage.failed('follow', err)) logger.error({ err, ...where, failures }, 'follow round failed; retrying');
          }
        }
        await sleep(delay);
      }
    } finally {
      wakeAll(); // a reconciliation waiting out its interval ends now
      await Promise.all([withdrawals, ...side]);
      await health.flush();
      clearInterval(beat);
      // The stop is now the new leader's to report; this process no longer knows.
      if (haltedReason !== null) deps.metrics?.chainHalted.set({ ...where, reason: haltedReason }, 0);
    }
  }

  async function follow(run: ChainRun): Promise<void> {
    const { settings, lease } = run;
    const where = { chain: settings.chain, network: settings.network };
    let standing = false;
    while (running) {
      let held = false;
      try {
        held = await lease.acquire();
      } catch (err) {
        logger.warn({ err, ...where }, 'could not reach the database to take the indexer lease; retrying');
      }
      if (!held) {
        if (!standing) logger.info(where, 'another indexer follows this chain; standing by');
        standing = true;
        await sleep(Math.min(1000, ttl / 3));
        continue;
      }
      standing = false;
      logger.info({ ...where, epoch: String(lease.epoch()), holder, threads: pool?.threads }, 'following');
      deps.metrics?.indexerLeader.set(where, 1);
      await lead(run);
      deps.metrics?.indexerLeader.set(where, 0);
      if (running) {
        logger.warn(where, 'indexer lease lost: another indexer follows this chain now; stopped following, standing by');
        standing = true;
      }
    }
    await lease.release().catch((err) => logger.warn({ err, ...where }, 'could not hand the indexer lease over; it expires on its own'));
  }

  return {
    followers: () => followers.map((f) => f.follower),
    start() {
      if (running) return;
      running = true;
      for (const run of followers) {
        // A loop never rejects: an error it did not expect is logged, and stop() still completes.
        loops.push(follow(run).catch((err) => logger.error({ err, chain: run.settings.chain }, 'indexer loop failed')));
      }
    },
    async stop() {
      running = false;
      wakeAll();
      await Promise.all(loops);
      await pool?.close().catch((err) => logger.warn({ err }, 'could not close the detect pool'));
      logger.info('indexer stopped');
    },
  };
}
