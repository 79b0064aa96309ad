import type { AssetRef, DetectResult } from '@walletd/core';
import type { HeldTransfer } from '../types';
import type { FollowerContext } from './followerContext';

/**
 * Token credits of a block that the node's balances do not bear out (a fee-on-transfer token logs
 * the full amount while less arrives; a rebasing token moves balances without logs) are held:
 * recorded pending with reason `balance_mismatch`, never confirmed, never available. Asks the
 * plugin's `checkBalances` only when detect reported token balance changes, so the cost follows
 * deposits, not blocks; it runs inside the pipelined fetch-and-detect step of the catch-up.
 */
export async function holdUnbacked(ctx: FollowerContext, result: DetectResult): Promise<void> {
  const changes = result.balanceChanges;
  const check = ctx.plugin.checkBalances;
  if (!check || !changes || changes.length === 0) return;
  const withAsset = changes.flatMap((c) => {
    const asset = ctx.assets.byKey.get(c.assetKey) as AssetRef | undefined;
    return asset?.contractAddress ? [{ ...c, asset }] : [];
  });
  if (withAsset.length === 0) return;
  const unbacked = await check.call(ctx.plugin, ctx.reader, result.block, withAsset);
  if (unbacked.length === 0) return;
  const held = new Set(unbacked.map((u) => `${u.toKey}|${u.assetKey}`));
  let n = 0;
  for (const t of result.transfers as HeldTransfer[]) {
    if (!held.has(`${t.toKey}|${t.assetKey}`)) continue;
    t.held = 'balance_mismatch';
    n++;
  }
  ctx.m?.depositsWithheld.inc({ ...ctx.labels, reason: 'balance_mismatch' }, n);
  ctx.logger.warn(
    {
      height: result.block.number.toString(),
      mismatches: unbacked.map((u) => ({
        address: u.toKey,
        asset: u.assetKey,
        logged: u.delta.toString(),
        balanceMoved: u.observed.toString(),
      })),
    },
    'token credits held: the balance did not move by what the token logged (fee-on-transfer or rebasing token?)',
  );
}
