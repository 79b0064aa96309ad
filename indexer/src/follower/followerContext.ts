import {
  type Chain,
  type ChainAssets,
  type ChainPlugin,
  type ChainReader,
  type ChainSettings,
  type Db,
  type Finality,
  type Logger,
  type Metrics,
  BaseError,
  chainAssets,
  ensureTokenAccounts,
  readerOptionsFor,
} from '@walletd/core';
import type { DetectPool } from '../detect/detectPool';
import { SharedAddressSet } from '../detect/sharedAddressSet';
import type { ChainKey, Fence, FollowerStats } from '../types';
import { DEFAULT_PIPELINE_BYTES, DEFAULT_PIPELINE_DEPTH } from './windowSize';

/** What `createFollower` is given (its parts read it from the context). */
export interface FollowerDeps {
  db: Db;
  logger: Logger;
  pool: DetectPool;
  plugin: ChainPlugin;
  settings: ChainSettings;
  reader?: ChainReader;
  metrics?: Metrics;
  /** Checked between blocks, so a stop does not wait out a whole catch-up. */
  shouldStop?: () => boolean;
  /** Told the head and indexed height whenever they change (chain health for readiness). */
  onProgress?: (stats: FollowerStats) => void;
  /** Run first in every write transaction (the indexer's lease): a follower that lost the chain writes nothing. */
  fence?: Fence;
  /**
   * Heights fetched and detected ahead of the one being written during a catch-up (1 = one at a
   * time). Writes stay in height order, one transaction per block.
   */
  pipelineDepth?: number;
  /**
   * Raw bytes of node answers a catch-up keeps in flight, estimated from the recent blocks' sizes:
   * the window holds fewer heights than `pipelineDepth` when blocks are big.
   */
  pipelineBytes?: number;
}

/**
 * What the follower's parts (catch-up, reorg checks, mempool scan, confirmations, rescan) share:
 * one per follower, made by `createFollower`. The mutable fields are the follower's state between
 * rounds.
 */
export interface FollowerContext {
  deps: FollowerDeps;
  db: Db;
  pool: DetectPool;
  plugin: ChainPlugin;
  settings: ChainSettings;
  fence: Fence | undefined;
  key: ChainKey;
  chain: Chain;
  logger: Logger;
  reader: ChainReader;
  threshold: number;
  window: number;
  finality: Finality;
  assets: ChainAssets;
  watched: SharedAddressSet;
  stats: FollowerStats;
  m: Metrics | undefined;
  labels: { chain: string; network: string };
  /** Heights in flight during a catch-up (`pipelineDepth`, at least 1). */
  depth: number;
  /** Raw bytes in flight a catch-up aims at (`pipelineBytes`), and the recent blocks' mean size (moving average; 0 before the first). */
  pipelineBytes: number;
  blockBytes: number;
  /** The ancestor of the last rewind while no block has been indexed since, and how often in a row. */
  lastRewind: bigint | null;
  rewindsInPlace: number;
  /** Mempool transactions already parsed (what is still in the node's mempool). */
  mempoolSeen: ReadonlySet<string>;
  /** The reader's start-up check passed (probeNode.ts). */
  probed: boolean;
  report(): void;
  refreshWatched(): Promise<void>;
}

export function createFollowerContext(deps: FollowerDeps): FollowerContext {
  const { db, plugin, settings } = deps;
  const key: ChainKey = { chain: settings.chain, network: settings.network };
  const chain = settings.chain as Chain;
  const logger = deps.logger.child({ chain: key.chain, network: key.network });
  const reader = deps.reader ?? plugin.createReader(chain, settings.network, readerOptionsFor(settings));
  // Said once per follower: with it off, value a contract sends to a deposit address is never credited.
  if (settings.internalTransfers === 'off')
    logger.warn(
      { internalTransfers: 'off' },
      `${key.chain}/${key.network}: internalTransfers is off: native coins moved by contracts are not credited`,
    );
  const definition = plugin.chains.find((c) => c.chain === chain)?.networks.find((n) => n.network === settings.network);
  if (!definition) throw new BaseError('chain_not_supported', `${plugin.name} does not serve ${key.chain}/${key.network}`);
  const threshold = settings.confirmations ?? definition.defaultConfirmations;
  // Wide enough to find the ancestor of any reorg that could still touch unconfirmed deposits.
  const window = settings.reorgWindow ?? Math.max(64, threshold + 16);
  const assets: ChainAssets = chainAssets(plugin, settings);
  const watched = new SharedAddressSet();
  let lastAddressId = 0;
  const stats: FollowerStats = { head: 0n, indexed: 0n, blocks: 0, reorgs: 0 };
  const m = deps.metrics;
  const labels = { chain: key.chain, network: key.network };
  let progressAt = Date.now();
  let progressBlocks = 0;
  /** Gauges after each block, and a progress line at most every 10 s while catching up. */
  function report(): void {
    const lag = stats.head > stats.indexed ? stats.head - stats.indexed : 0n;
    m?.chainHead.set(labels, Number(stats.head));
    m?.indexedHeight.set(labels, Number(stats.indexed));
    m?.lagBlocks.set(labels, Number(lag));
    deps.onProgress?.({ ...stats });
    const elapsed = Date.now() - progressAt;
    if (elapsed >= 10_000 && stats.blocks > progressBlocks) {
      const perSecond = ((stats.blocks - progressBlocks) * 1000) / elapsed;
      logger.info(
        {
          head: stats.head.toString(),
          indexed: stats.indexed.toString(),
          lag: lag.toString(),
          blocksPerSecond: Number(perSecond.toFixed(1)),
        },
        'indexing',
      );
      progressAt = Date.now();
      progressBlocks = stats.blocks;
    }
  }

  /**
   * New addresses, before every block. Ids can commit out of order (two wallets generating at
   * once), so the last ids are read again; adding an address twice is a no-op.
   */
  async function refreshWatched(): Promise<void> {
    // Token accounts of new deposit addresses first (and at start, of every address lacking one
    // for a token allow-listed since): a deposit through one is only seen once it is watched.
    const afterId = Math.max(0, lastAddressId - 1000);
    const added = await ensureTokenAccounts(db, plugin, reader, chain, key.network, assets.tokens, { afterId });
    if (added > 0) logger.info({ added }, 'token accounts registered');
    const rows = (await db('addresses')
      .where(key)
      .andWhere('id', '>', Math.max(0, lastAddressId - 1000))
      .orderBy('id')
      .select('id', 'match_key')) as { id: number; match_key: string }[];
    for (const r of rows) {
      watched.add(r.match_key);
      lastAddressId = Math.max(lastAddressId, r.id);
    }
  }

  return {
    deps,
    db,
    pool: deps.pool,
    plugin,
    settings,
    fence: deps.fence,
    key,
    chain,
    logger,
    reader,
    threshold,
    window,
    // The network's own rule (the plugin's), unless the operator chose another in chains[].finality.
    finality: settings.finality ?? definition.finality,
    assets,
    watched,
    stats,
    m,
    labels,
    depth: Math.max(1, deps.pipelineDepth ?? DEFAULT_PIPELINE_DEPTH),
    pipelineBytes: deps.pipelineBytes ?? DEFAULT_PIPELINE_BYTES,
    blockBytes: 0,
    lastRewind: null,
    rewindsInPlace: 0,
    mempoolSeen: new Set(),
    probed: false,
    report,
    refreshWatched,
  };
}
