import { type ChainSettings, type Db, type Logger, type Metrics, type PluginRegistry, withRole } from '@walletd/core';
import { type DetectPool, createDetectPool } from './detectPool';
import { type ChainHealthReporter, createChainHealthReporter } from './chainHealthReporter';
import { type Follower, createFollower } from './follower';

export interface Indexer {
  start(): void;
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
}

/**
 * One follower per configured chain/network, all sharing one detect pool. Each follower runs only
 * while this process holds the chain's PostgreSQL advisory lock: a second indexer process waits
 * and takes over when the first one dies (its session, and so its lock, ends with it).
 */
export function createIndexer(deps: IndexerDeps): Indexer {
  const logger = withRole(deps.logger, 'indexer');
  // No chains, no threads: the pool exists only when something follows a chain.
  const pool: DetectPool | null = deps.chains.length > 0 ? createDetectPool(deps.threads) : null;
  const followers = deps.chains.map((settings) => {
    const plugin = deps.registry.forChain(settings.chain);
    if (!plugin) throw new Error(`no plugin serves ${settings.chain} (configured in chains[])`);
    const health = createChainHealthReporter(deps.db, { chain: settings.chain, network: settings.network }, logger);
    return {
      settings,
      health,
      follower: createFollower({
        db: deps.db,
        logger,
        pool: pool as DetectPool,
        plugin,
        settings,
        metrics: deps.metrics,
        shouldStop: () => !running,
        onProgress: health.progress,
      }),
    };
  });
  let running = false;
  const loops: Promise<void>[] = [];
  const wakers = new Set<() => void>();

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

  async function follow(settings: ChainSettings, follower: Follower, health: ChainHealthReporter): Promise<void> {
    const lockKey = `walletd:indexer:${settings.chain}:${settings.network}`;
    const conn = (await deps.db.client.acquireConnection()) as import('pg').Client;
    try {
      let announced = false;
      while (running) {
        const { rows } = await conn.query('select pg_try_advisory_lock(hashtext($1)) as ok', [lockKey]);
        if (rows[0]?.ok) break;
        if (!announced)
          logger.info({ chain: settings.chain, network: settings.network }, 'another indexer follows this chain; standing by');
        announced = true;
        await sleep(1000);
      }
      if (!running) return;
      logger.info({ chain: settings.chain, network: settings.network, threads: pool?.threads }, 'following');
      let failures = 0;
      while (running) {
        const poll = settings.pollIntervalMs ?? 2000;
        try {
          await follower.tick();
          health.roundSucceeded(follower.stats());
          if (pool) deps.metrics?.poolUtilization.set(pool.utilization());
          failures = 0;
        } catch (err) {
          failures++;
          health.roundFailed(follower.stats(), err);
          logger.error({ err, chain: settings.chain, network: settings.network, failures }, 'follow round failed; retrying');
        }
        // A failing node is retried with backoff (doubling, at most 30 s), not hammered.
        await sleep(failures === 0 ? poll : Math.min(poll * 2 ** failures, 30_000));
      }
      await health.flush();
      await conn.query('select pg_advisory_unlock(hashtext($1))', [lockKey]);
    } finally {
      await deps.db.client.releaseConnection(conn);
    }
  }

  return {
    followers: () => followers.map((f) => f.follower),
    start() {
      if (running) return;
      running = true;
      for (const { settings, follower, health } of followers) loops.push(follow(settings, follower, health));
    },
    async stop() {
      running = false;
      for (const w of [...wakers]) w();
      await Promise.all(loops);
      await pool?.close();
      logger.info('indexer stopped');
    },
  };
}
