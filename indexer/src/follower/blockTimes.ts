import type { Detected } from './detectAt';
import type { FollowerContext } from './followerContext';

/**
 * After a write: the newest block's header time for `walletd_chain_tip_age_seconds`, and for each
 * deposit detected, the time from its block's header to now, when its `deposit.detected` was
 * recorded (`walletd_deposit_detection_delay_seconds`). Only for chains whose plugin reads the
 * header time (`BlockRef.timestamp`). The host clock: its skew from the database's is watched.
 */
export function observeBlockTimes(ctx: FollowerContext, results: Detected[], detected: number[]): void {
  const { m, labels } = ctx;
  if (!m) return;
  const now = Date.now() / 1000;
  const last = results[results.length - 1];
  if (last?.block.timestamp !== undefined) {
    m.chainTipTime.set(`${labels.chain}/${labels.network}`, {
      chain: labels.chain,
      network: labels.network,
      seconds: last.block.timestamp,
    });
  }
  results.forEach((r, i) => {
    const ts = r.block.timestamp;
    if (ts === undefined) return;
    for (let n = 0; n < (detected[i] ?? 0); n++) m.depositDetectionDelay.observe(labels, Math.max(0, now - ts));
  });
}
