import { BaseError, type Db, type Logger, type Metrics } from '@walletd/core';
import type { ChainKey } from '../types';

/**
 * Why the indexer stopped following a chain. Each means the node's chain cannot be indexed on
 * top of what is recorded; following anyway would rewind forever or mix two chains' deposits.
 */
export type ChainHaltReason =
  /** Block 0 is not the one recorded when the chain was first indexed (another chain, a reset devnet). */
  | 'genesis_changed'
  /** The node reports another chain id than the one recorded. */
  | 'chain_id_changed'
  /** The node reports another chain id than the `chainId` its `chains[]` entry declares. */
  | 'chain_id_mismatch'
  /** The node's own blocks do not link: a block's parent hash is not the hash it reports for the height below. */
  | 'blocks_do_not_link'
  /** Rewound to the same ancestor again without indexing a block in between. */
  | 'rewind_no_progress'
  /** The node refuses what the chain's configuration needs to read every deposit (EVM call traces; `reader.probe`). */
  | 'traces_refused';

export class ChainHaltedError extends BaseError {
  constructor(
    readonly key: ChainKey,
    readonly reason: ChainHaltReason,
    message: string,
  ) {
    super('unavailable', `${key.chain}/${key.network} stopped (${reason}): ${message}`, { details: { reason } });
    this.name = 'ChainHaltedError';
  }
}

/** Written by the indexer that holds the chain; `/readyz` reads it (any process). */
export async function recordHalt(db: Db, key: ChainKey, err: ChainHaltedError): Promise<void> {
  const n = await db('followed_chains').where(key).update({ halted_code: err.reason, halted_message: err.message, halted_at: db.fn.now() });
  // A chain halted before its identity was recorded (a node that never linked) still shows as halted.
  if (n === 0)
    await db('followed_chains')
      .insert({ ...key, genesis_hash: '', halted_code: err.reason, halted_message: err.message, halted_at: db.fn.now() })
      .onConflict(['chain', 'network'])
      .merge(['halted_code', 'halted_message', 'halted_at']);
}

/**
 * A stop recorded, counted and said once: at error level the first time, at debug when the same
 * reason comes back after a back-off (a node refusing traces is asked again each time). The
 * operator acts on the first line; `/readyz` and the metric keep saying it.
 */
export async function announceHalt(
  deps: { db: Db; logger: Logger; metrics?: Metrics | undefined },
  key: ChainKey,
  err: ChainHaltedError,
  previous: string | null,
  retryInMs: number,
): Promise<void> {
  const { db, logger, metrics } = deps;
  if (previous !== null && previous !== err.reason) metrics?.chainHalted.set({ ...key, reason: previous }, 0);
  metrics?.chainHalted.set({ ...key, reason: err.reason }, 1);
  await recordHalt(db, key, err).catch((e) => logger.warn({ err: e, ...key }, 'could not record the stopped chain'));
  const line = { ...key, reason: err.reason, retryInMs };
  if (previous === err.reason) logger.debug(line, err.message);
  else logger.error(line, err.message);
}

export async function clearHalt(db: Db, key: ChainKey): Promise<void> {
  await db('followed_chains').where(key).whereNotNull('halted_at').update({ halted_code: null, halted_message: null, halted_at: null });
}
