import { BaseError, loadAttempts } from '@walletd/core';
import type { Common } from '../platform/context';
import { replaceWithdrawal } from './replace';

/** How often the indexer leading a chain looks for payouts to bump (the blocks decide when one is due). */
export const AUTO_BUMP_TICK_MS = 10_000;
/** Withdrawals looked at per run, oldest first; the rest wait for the next run. */
const PER_RUN = 100;

/**
 * Issue 46 §5, opt-in per chain (`chains[].autoBump`): a `broadcast` withdrawal whose latest
 * transaction has waited `afterBlocks` indexed blocks is sped up, fees `factor` times the latest
 * (at least the replacement rule), never above the cap. The blocks are counted from the indexed
 * height at which this loop first saw the latest transaction (`auto_bump_from`, migration 045;
 * any replacement, manual or automatic, clears it), so a withdrawal is bumped at most once per
 * `afterBlocks`. It goes through `replaceWithdrawal`: the same locks as a person's speed-up (never
 * two at once), the same funds check, audited with `actor_type` `system`; `replaces` names the
 * transaction this loop saw, so a manual speed-up in between wins and this one is refused (409).
 * A refusal (at the cap, funds short, the node) is logged and waits another `afterBlocks`.
 * Runs where the chain is led (one process per chain), beside the sweeper.
 */
export async function runAutoBumps(
  common: Common,
  key: { chain: string; network: string },
  shouldStop: () => boolean = () => false,
): Promise<{ bumped: number; refused: number }> {
  const { db, config, logger } = common;
  const done = { bumped: 0, refused: 0 };
  const auto = config.chains.find((c) => c.chain === key.chain && c.network === key.network)?.autoBump;
  if (!auto || !common.plugins.forChain(key.chain)?.withdrawals?.replace) return done;
  const cursor = (await db('chain_cursors').where(key).first('height')) as { height: string } | undefined;
  if (!cursor) return done;
  const height = BigInt(cursor.height);
  const rows = (await db('withdrawals')
    .where({ ...key, status: 'broadcast' })
    .orderBy('id')
    .limit(PER_RUN)
    .select('id', 'tx_hash', 'auto_bump_from')) as { id: number; tx_hash: string; auto_bump_from: string | null }[];
  const waitFromNow = (id: number) => db('withdrawals').where({ id, status: 'broadcast' }).update({ auto_bump_from: height.toString() });
  for (const row of rows) {
    if (shouldStop()) break;
    if (row.auto_bump_from === null) {
      await db('withdrawals')
        .where({ id: row.id, status: 'broadcast' })
        .whereNull('auto_bump_from')
        .update({ auto_bump_from: height.toString() });
      continue;
    }
    if (height - BigInt(row.auto_bump_from) < BigInt(auto.afterBlocks)) continue;
    const latest = (await loadAttempts(db, row.id)).at(-1);
    if (latest?.kind === 'cancel') continue; // a person cancelled it: never sped up over that
    try {
      await replaceWithdrawal(common, row.id, {
        kind: 'speed_up',
        keyId: null,
        actor: { type: 'system', id: null },
        replaces: latest?.tx_hash ?? row.tx_hash,
        factorPermille: BigInt(Math.round(auto.factor * 1000)),
        ...(auto.maxFeePerGas !== undefined ? { maxFeePerGas: BigInt(auto.maxFeePerGas) } : {}),
        ...(auto.maxFeeRate !== undefined ? { maxFeeRate: BigInt(auto.maxFeeRate) } : {}),
      });
      done.bumped++;
    } catch (e) {
      done.refused++;
      await waitFromNow(row.id);
      const why = e instanceof BaseError ? `${e.code}: ${e.message}` : String(e);
      logger.info({ ...key, withdrawalId: row.id, reason: why }, 'auto-bump: not sped up; looking again after afterBlocks more blocks');
    }
  }
  if (done.bumped || done.refused) logger.info({ ...key, ...done }, 'auto-bump run');
  return done;
}
