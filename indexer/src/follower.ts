import {
  type Chain,
  type ChainPlugin,
  type ChainReader,
  type ChainAssets,
  type ChainSettings,
  type Db,
  type Logger,
  type MempoolSnapshot,
  type Metrics,
  chainAssets,
  ensureTokenAccounts,
  readerOptionsFor,
  wrongHeightError,
} from '@walletd/core';
import type { Fence } from './chainLease';
import { ChainHaltedError } from './chainHalt';
import { checkChainIdentity } from './chainIdentity';
import type { DetectPool } from './detectPool';
import { SharedAddressSet } from './sharedAddressSet';
import {
  type ChainKey,
  type RecordedBlock,
  advanceCursor,
  applyDecisions,
  lastRecordedBlock,
  pendingTransfers,
  persistBlock,
  persistBlocks,
  persistMempool,
  readCursor,
  recordedBlocksBelow,
  rejectDetached,
  rewindTo,
} from './transferStore';
import { type TrackOutcome, trackWithdrawals } from './withdrawalTracker';

/** Rewinds to the same block, with no block indexed between them, before the chain is stopped. */
const MAX_REWINDS_IN_PLACE = 3;

/**
 * Heights fetched and detected ahead of the one being written, unless `indexer.pipelineDepth` says
 * otherwise. It bounds the bytes in flight too: at most this many blocks, each at most the answers
 * one block takes (EVM, Tron: 2) × the chain's `maxResponseBytes` (readCapped), whatever the node sends.
 */
export const DEFAULT_PIPELINE_DEPTH = 8;

export interface FollowerStats {
  head: bigint;
  indexed: bigint;
  blocks: number;
  reorgs: number;
}

export interface Follower {
  readonly key: ChainKey;
  /** One round of each loop, one after the other (`followRound`, then `trackWithdrawals`). */
  tick(): Promise<void>;
  /** Follows the chain to its head once: refresh watched addresses, index new blocks, confirm deposits. */
  followRound(): Promise<void>;
  /** Withdrawals of this chain through the plugin's `verify` (the indexer runs it in a loop of its own). */
  trackWithdrawals(): Promise<TrackOutcome>;
  /**
   * Re-reads blocks from a height (rescan): finds what was missed, emits nothing twice. Final
   * blocks are read up to the final height; past it only blocks the live follower recorded (same
   * hash), whose reorgs it handles. Returns the last height read and, when it stopped before the
   * head, the first it did not.
   */
  rescanFrom(height: bigint): Promise<{ to: bigint; stoppedAt: bigint | null }>;
  stats(): FollowerStats;
}

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
}

export function createFollower(deps: FollowerDeps): Follower {
  const { db, pool, plugin, settings, fence } = deps;
  const key: ChainKey = { chain: settings.chain, network: settings.network };
  const chain = settings.chain as Chain;
  const logger = deps.logger.child({ chain: key.chain, network: key.network });
  const reader = deps.reader ?? plugin.createReader(chain, settings.network, readerOptionsFor(settings));
  const definition = plugin.chains.find((c) => c.chain === chain)?.networks.find((n) => n.network === settings.network);
  if (!definition) throw new Error(`${plugin.name} does not serve ${key.chain}/${key.network}`);
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

  const task = (raw: Uint8Array) => ({
    detectModule: plugin.detectModule,
    raw,
    chain,
    network: key.network,
    native: assets.native,
    tokens: assets.tokens,
    watched: watched.table,
  });
  const formatSenders = (transfers: { from?: string }[]) => {
    for (const t of transfers) if (t.from) t.from = plugin.formatAddress(chain, key.network, t.from);
  };

  /**
   * Fetch on this thread, parse and detect in a worker; format the senders of what matched. null:
   * the height has no block (a skipped slot).
   */
  async function detectAt(height: bigint) {
    const raw = await reader.fetchBlock(height);
    if (raw === null) return null;
    const result = await pool.detect(task(raw));
    if (result.block.number !== height) throw wrongHeightError(`${key.chain}/${key.network}`, 'fetchBlock', height, result.block.number);
    formatSenders(result.transfers);
    return result;
  }

  /** Mempool transactions already parsed (what is still in the node's mempool). */
  let mempoolSeen: ReadonlySet<string> = new Set();
  /** New mempool transactions to company addresses: pending, 0 confirmations. */
  async function scanMempool(snapshot: MempoolSnapshot): Promise<void> {
    const found = snapshot.raw.length > 0 ? await pool.detectMempool(task(snapshot.raw)) : [];
    formatSenders(found);
    const detected = await persistMempool(db, key, found, assets.byKey, fence);
    mempoolSeen = new Set(snapshot.txids);
    if (detected) {
      m?.deposits.inc({ ...labels, type: 'deposit.detected' }, detected);
      logger.info({ detected }, 'deposits detected in the mempool');
    }
  }

  type Detected = NonNullable<Awaited<ReturnType<typeof detectAt>>>;
  /**
   * Records consecutive detected blocks (each one's parent already checked), in height order, in
   * one transaction; `cursorTo`: a height without a block stepped over after the last of them.
   */
  async function recordBlocks(results: Detected[], cursorTo: bigint | null): Promise<void> {
    const detected = await persistBlocks(db, key, results, assets.byKey, window, stats.head, {
      fence,
      cursorTo: cursorTo ?? undefined,
    });
    lastRewind = null;
    rewindsInPlace = 0;
    const top = (results[results.length - 1] as Detected).block.number;
    stats.indexed = cursorTo !== null && cursorTo > top ? cursorTo : top;
    stats.blocks += results.length;
    m?.blocksIndexed.inc(labels, results.length);
    const total = detected.reduce((a, b) => a + b, 0);
    if (total) m?.deposits.inc({ ...labels, type: 'deposit.detected' }, total);
    report();
    results.forEach((r, i) => {
      if (detected[i]) logger.info({ height: r.block.number.toString(), detected: detected[i] }, 'deposits detected');
    });
  }

  /** The ancestor of the last rewind while no block has been indexed since, and how often in a row. */
  let lastRewind: bigint | null = null;
  let rewindsInPlace = 0;
  /**
   * A rewind leaves the cursor on a block whose hash the node just confirmed. If the next block
   * does not link to it, the node's chain is inconsistent (a devnet restored badly: block 0 is not
   * block 1's parent) or it reorganised again in between. A busy chain can do that once or twice;
   * a third time in a row at the same block would rewind forever, so the chain stops with the
   * cause instead of spinning.
   */
  async function checkProgress(height: bigint, parentHash: string, last: RecordedBlock | null): Promise<void> {
    if (lastRewind === null || last === null || lastRewind !== last.height) return;
    if (rewindsInPlace < MAX_REWINDS_IN_PLACE) return;
    // Only with no height between them can the node's own two blocks be said not to link.
    const below = lastRewind === height - 1n ? await reader.blockHash(height - 1n) : parentHash;
    if (below !== parentHash)
      throw new ChainHaltedError(
        key,
        'blocks_do_not_link',
        `the node's block ${height} has parent ${parentHash}, but its block ${height - 1n} is ${below}; the node's chain is inconsistent (restore or resync it)`,
      );
    throw new ChainHaltedError(
      key,
      'rewind_no_progress',
      `rewound to block ${lastRewind} ${rewindsInPlace} times in a row without indexing a block`,
    );
  }

  /**
   * Walks back through the recorded blocks (heights without a block were never recorded) until our
   * hash equals the node's, within the window. None equal: before calling it a reorg deeper than
   * the window, the node's answer for the latest of them is checked for its height (a node
   * answering every height with another block differs at every hash).
   */
  async function handleReorg(height: bigint): Promise<void> {
    stats.reorgs++;
    m?.reorgs.inc(labels);
    const recorded = await recordedBlocksBelow(db, key, height, height - BigInt(window));
    for (const { height: h, hash: ours } of recorded) {
      if (ours === (await reader.blockHash(h))) {
        const { detached, confirmedAbove } = await rewindTo(db, key, h, ours, fence);
        rewindsInPlace = lastRewind === h ? rewindsInPlace + 1 : 1;
        lastRewind = h;
        logger.warn({ from: height.toString(), ancestor: h.toString(), detached }, 'reorg: rewound to the common ancestor');
        if (confirmedAbove > 0)
          logger.error({ confirmedAbove }, 'reorg deeper than the confirmation threshold removed CONFIRMED deposits; reconcile by hand');
        return;
      }
    }
    if (recorded[0]) await detectAt(recorded[0].height);
    throw new Error(`reorg deeper than the ${window}-block window at height ${height}; raise reorgWindow or rescan`);
  }

  // The network's own rule (the plugin's), unless the operator chose another in chains[].finality.
  const finality = settings.finality ?? definition.finality;
  async function finalizedHeight(): Promise<bigint | null> {
    if (finality !== 'finalized') return null;
    if (!reader.finalized) throw new Error(`${plugin.name} cannot report a finalized block for ${key.chain}/${key.network}`);
    return reader.finalized();
  }

  /** The plugin decides what is final (its `confirm` verb); the store records it with events. */
  async function confirmPending(head: bigint, finalized: bigint | null): Promise<number> {
    const pending = await pendingTransfers(db, key);
    const decisions = plugin.confirm({ pending, head, finalized, threshold, finality });
    return applyDecisions(db, key, decisions, assets.byKey, fence);
  }

  async function followToHead(): Promise<void> {
    // Nothing is read from a node that no longer serves the indexed chain.
    await checkChainIdentity(db, key, reader, fence);
    // The mempool is read before the blocks: a transaction that leaves it for a block is then in a
    // block this round indexes, never taken for dropped.
    const snapshot = reader.mempool ? await reader.mempool(mempoolSeen) : null;
    const head = await reader.head();
    stats.head = head;
    let cursor = await readCursor(db, key);
    if (!cursor) {
      const start = settings.startBlock === undefined || settings.startBlock === 'latest' ? head : BigInt(settings.startBlock);
      cursor = { height: start - 1n, hash: null };
    }
    // Lag is known as soon as the head is: a catch-up shows it before its first block is in.
    stats.indexed = cursor.height > 0n ? cursor.height : 0n;
    report();
    // A node behind our cursor (restarted, syncing, another backend) is not a reorg: wait for it.
    if (head < cursor.height) {
      logger.warn({ head: head.toString(), cursor: cursor.height.toString() }, 'node is behind the indexed height; waiting');
      return;
    }
    // A reorg to a chain of the same length (or shorter) brings no new block to check a parent
    // against: check that the last recorded block is still the node's.
    let last = await lastRecordedBlock(db, key);
    const underCursor = last === null ? null : await reader.blockHash(last.height);
    if (last !== null && underCursor !== null && underCursor !== last.hash) {
      await handleReorg(last.height + 1n);
      cursor = (await readCursor(db, key)) ?? cursor;
      last = await lastRecordedBlock(db, key);
    }
    if (!(await catchUp(cursor.height, head, last))) return;
    // At the head of the (new) chain, what a reorg detached and did not come back is retracted.
    // Every round, not only the one that saw the reorg: a crash in between leaves nothing pending.
    if (snapshot) await scanMempool(snapshot);
    const rejected = await rejectDetached(db, key, assets.byKey, snapshot ? new Set(snapshot.txids) : null, fence);
    if (rejected) {
      m?.deposits.inc({ ...labels, type: 'deposit.rejected' }, rejected);
      logger.warn({ rejected }, 'deposits retracted (reorg, or dropped from the mempool)');
    }
    const finalized = await finalizedHeight();
    const confirmed = await confirmPending(head, finalized);
    if (confirmed) m?.deposits.inc({ ...labels, type: 'deposit.confirmed' }, confirmed);
    report();
    if (confirmed) logger.info({ confirmed, head: head.toString() }, 'deposits confirmed');
  }

  const depth = Math.max(1, deps.pipelineDepth ?? DEFAULT_PIPELINE_DEPTH);
  type InFlight = { height: bigint; result: Promise<Detected | null>; settled: boolean; failed: boolean };
  /** Lets work past a reorg or a stop finish unobserved (no unhandled rejection, no pool task cut). */
  async function discard(inFlight: InFlight[]): Promise<void> {
    await Promise.allSettled(inFlight.splice(0).map((f) => f.result));
  }

  /**
   * Heights after `from` up to `head`: up to `depth` of them fetched and detected at once (the
   * pool's threads parse while the main thread fetches and writes), taken strictly in height
   * order. Each block's parent is checked against the last recorded block before anything is
   * written (heights without a block are stepped over, never recorded); the blocks already detected
   * at the front of the window are written together, in one transaction. On a mismatch, the blocks
   * before it are written, everything in flight is dropped, the follower rewinds and starts again
   * after the common ancestor. false: stopped.
   */
  async function catchUp(from: bigint, head: bigint, lastRecorded: RecordedBlock | null): Promise<boolean> {
    let last = lastRecorded;
    const inFlight: InFlight[] = [];
    let next = from + 1n;
    /** The highest height stepped over and not yet written to the cursor. */
    let skipped: bigint | null = null;
    const flushSkipped = async () => {
      if (skipped === null) return;
      await advanceCursor(db, key, skipped, last?.hash ?? null, fence);
      skipped = null;
    };
    try {
      for (;;) {
        if (deps.shouldStop?.()) {
          await discard(inFlight);
          await flushSkipped();
          return false;
        }
        // Addresses created before these heights are fetched are watched in them: one refresh
        // for the heights this pass sends off.
        let refreshed: Promise<void> | null = null;
        while (inFlight.length < depth && next <= head) {
          const height = next++;
          refreshed ??= refreshWatched();
          const entry: InFlight = { height, result: refreshed.then(() => detectAt(height)), settled: false, failed: false };
          entry.result.then(
            () => {
              entry.settled = true;
            },
            () => {
              entry.settled = true;
              entry.failed = true;
            },
          );
          inFlight.push(entry);
        }
        const front = inFlight[0];
        if (!front) break;
        await front.result;
        // The detected prefix of the window, in order, up to the first block that does not link
        // (or that failed: what came before it is written, then its error ends the round).
        const group: Detected[] = [];
        let tip = last;
        let mismatch: { height: bigint; parentHash: string } | null = null;
        while (inFlight[0] && (group.length === 0 || (inFlight[0].settled && !inFlight[0].failed))) {
          const item = inFlight.shift() as InFlight;
          const result = await item.result;
          if (result === null) {
            skipped = item.height;
            if (group.length === 0) stats.indexed = item.height;
            continue;
          }
          if (tip !== null && result.block.parentHash !== tip.hash) {
            mismatch = { height: item.height, parentHash: result.block.parentHash };
            break;
          }
          group.push(result);
          tip = { height: result.block.number, hash: result.block.hash };
          if (skipped !== null && skipped < result.block.number) skipped = null;
        }
        if (group.length > 0) {
          await recordBlocks(group, skipped);
          last = tip;
          skipped = null;
        }
        if (mismatch) {
          await discard(inFlight);
          await checkProgress(mismatch.height, mismatch.parentHash, last);
          await handleReorg(mismatch.height);
          skipped = null;
          const back = await readCursor(db, key);
          next = (back ? back.height : mismatch.height - 1n) + 1n;
          last = await lastRecordedBlock(db, key);
        }
      }
      await flushSkipped();
      return true;
    } finally {
      await discard(inFlight);
    }
  }

  async function followRound(): Promise<void> {
    await refreshWatched();
    await followToHead();
  }

  /** Withdrawals by the same rule as deposits, against the node's head; in a loop of their own. */
  async function trackRound(): Promise<TrackOutcome> {
    // Never judged against a node that no longer serves the indexed chain.
    await checkChainIdentity(db, key, reader, fence);
    const head = await reader.head();
    const finalized = await finalizedHeight();
    const tracked = await trackWithdrawals(db, logger, plugin, reader, key, { head, finalized, threshold, finality }, fence);
    if (tracked.broadcast + tracked.confirmed + tracked.rejected + tracked.resent > 0) logger.info({ ...tracked }, 'withdrawals tracked');
    return tracked;
  }

  return {
    key,
    stats: () => ({ ...stats }),
    followRound,
    trackWithdrawals: trackRound,
    async tick() {
      await followRound();
      await trackRound();
    },
    async rescanFrom(height: bigint) {
      await checkChainIdentity(db, key, reader);
      await refreshWatched();
      const head = await reader.head();
      const finalized = await finalizedHeight();
      // A block this deep is final under the chain's rule (finalized tag, or `threshold` confirmations).
      const final = finalized ?? head - BigInt(Math.max(1, threshold)) + 1n;
      let to = height - 1n;
      for (let h = height; h <= head; h++) {
        const result = await detectAt(h);
        if (result !== null && h > final) {
          // Not final: no parent is checked here, so a block of another fork (a lagging or
          // balanced node) would be recorded and later confirmed by depth alone. Only the block
          // the live follower recorded at this height is, its reorgs then being the follower's.
          const [recorded] = await recordedBlocksBelow(db, key, h + 1n, h);
          if (recorded?.hash !== result.block.hash) {
            logger.warn(
              { stoppedAt: h.toString(), final: final.toString() },
              'rescan stopped at a block that is not final and not the one the live follower recorded; rescan from here once it is final',
            );
            await confirmPending(head, finalized);
            return { to, stoppedAt: h };
          }
        }
        // Transfers and events only: the live follower's cursor and block window are not touched.
        if (result !== null) await persistBlock(db, key, result, assets.byKey, window, head, false);
        to = h;
      }
      await confirmPending(head, finalized);
      return { to, stoppedAt: null };
    },
  };
}
